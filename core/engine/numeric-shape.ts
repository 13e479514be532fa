/**
 * A statement text with its numeric literals replaced by `?`: applications send the same
 * statement with other numbers in it (`WHERE order_id = 1234`, `LIMIT 50`), and what the
 * function policy reads from the engine's parse — the functions called, the tables and the
 * files named — never depends on a number. Texts of one shape share that parse's findings.
 *
 * Only text this scanner reads without doubt gets a shape; anything else gets none (and is
 * parsed by the engine as before): a `$` (dollar quoting, parameters), a backslash (escape
 * strings), a quote right after a letter, digit or `&` (E'...', U&'...' and other prefixed
 * strings), a block comment inside a block comment, an unterminated string, identifier or
 * comment, or a number run into a letter. Strings, quoted identifiers and comments are kept
 * as they are: their digits are not numbers.
 */
export function numericShape(sql: string): string | undefined {
  if (sql.includes('$') || sql.includes('\\')) return undefined;
  let shape = '';
  let index = 0;
  const length = sql.length;
  while (index < length) {
    const char = sql[index]!;
    if (char === "'" || char === '"') {
      if (char === "'" && index > 0 && /[A-Za-z0-9_&]/.test(sql[index - 1]!)) return undefined;
      const end = quotedEnd(sql, index, char);
      if (end === undefined) return undefined;
      shape += sql.slice(index, end);
      index = end;
    } else if (char === '-' && sql[index + 1] === '-') {
      const newline = sql.indexOf('\n', index);
      const end = newline === -1 ? length : newline;
      shape += sql.slice(index, end);
      index = end;
    } else if (char === '/' && sql[index + 1] === '*') {
      const close = sql.indexOf('*/', index + 2);
      if (close === -1 || sql.slice(index + 2, close).includes('/*')) return undefined;
      shape += sql.slice(index, close + 2);
      index = close + 2;
    } else if (/[0-9]/.test(char) || (char === '.' && /[0-9]/.test(sql[index + 1] ?? ''))) {
      const previous = index > 0 ? sql[index - 1]! : ' ';
      // A digit inside a name (t1, col_2) or after a dot (t.1?) is no number of its own.
      if (/[A-Za-z0-9_.]/.test(previous)) {
        shape += char;
        index++;
        continue;
      }
      const match = /^(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9]+)?/.exec(sql.slice(index, index + 400));
      if (!match) return undefined;
      const end = index + match[0].length;
      if (end < length && /[A-Za-z0-9_.]/.test(sql[end]!)) return undefined;
      shape += '?';
      index = end;
    } else {
      shape += char;
      index++;
    }
  }
  return shape;
}

/** Where a string or quoted identifier opened at `start` ends (after its closing quote; a doubled quote is one character). */
function quotedEnd(sql: string, start: number, quote: string): number | undefined {
  let index = start + 1;
  for (;;) {
    const next = sql.indexOf(quote, index);
    if (next === -1) return undefined;
    if (sql[next + 1] === quote) {
      index = next + 2;
      continue;
    }
    return next + 1;
  }
}
