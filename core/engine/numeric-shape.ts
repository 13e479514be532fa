/**
 * A statement text with its numeric literals replaced by `?`: applications send the same
 * statement with other numbers in it (`WHERE order_id = 1234`, `LIMIT 50`), and what the
 * function policy reads from the engine's parse — the functions called, the tables and the
 * files named — never depends on a number. Texts of one shape share that parse's findings.
 *
 * Only text this scanner reads without doubt gets a shape; anything else gets none (and is
 * parsed by the engine as before): longer than 16 KiB, a `$` (dollar quoting, parameters), a
 * backslash (escape strings), a quote right after a letter, digit or `&` (E'...', U&'...' and
 * other prefixed strings), a block comment inside a block comment, an unterminated string,
 * identifier or comment, or a number run into a letter. Strings, quoted identifiers and
 * comments are kept as they are: their digits are not numbers.
 */
export function numericShape(sql: string): string | undefined {
  return readLiterals(sql, undefined);
}

/**
 * The constants a statement text writes, as written and in sorted order: its numbers and its
 * single-quoted strings (`'2024-01-01'`, `'a''b'`), joined by NUL; undefined where
 * `numericShape` gives no shape. Two texts with the same logical plan almost always write the
 * same constants (a plan holds them), so texts that share no constants with any other need
 * not be planned to find out (the results cache's plan keys, cache-key.ts). The exceptions
 * — a number that is no constant (`ORDER BY 1`), constants folded or written otherwise
 * (`1 + 1` and `2`, `10` and `1e1`) — only make such texts miss each other.
 */
export function constantsSignature(sql: string): string | undefined {
  const constants: string[] = [];
  return readLiterals(sql, constants) === undefined ? undefined : constants.sort().join('\u0000');
}

/** The numeric shape of `sql`, pushing each number and single-quoted string onto `constants` when given. */
function readLiterals(sql: string, constants: string[] | undefined): string | undefined {
  if (sql.length > MAX_SHAPED_LENGTH || sql.includes('$') || sql.includes('\\')) return undefined;
  const parts: string[] = [];
  let copied = 0;
  let index = 0;
  const length = sql.length;
  for (;;) {
    // Letters, spaces and operators are copied as they are: jump to the next character that may open something.
    SPECIAL.lastIndex = index;
    const found = SPECIAL.exec(sql);
    if (!found) break;
    index = found.index;
    const code = sql.charCodeAt(index);
    if (code === QUOTE || code === DOUBLE_QUOTE) {
      if (code === QUOTE && index > 0 && isPrefixCharacter(sql.charCodeAt(index - 1))) return undefined;
      const end = quotedEnd(sql, index, sql[index]!);
      if (end === undefined) return undefined;
      if (constants !== undefined && code === QUOTE) constants.push(sql.slice(index, end));
      index = end;
    } else if (code === DASH) {
      if (sql.charCodeAt(index + 1) !== DASH) {
        index++;
        continue;
      }
      const newline = sql.indexOf('\n', index);
      index = newline === -1 ? length : newline;
    } else if (code === SLASH) {
      if (sql.charCodeAt(index + 1) !== STAR) {
        index++;
        continue;
      }
      const close = sql.indexOf('*/', index + 2);
      if (close === -1 || sql.slice(index + 2, close).includes('/*')) return undefined;
      index = close + 2;
    } else if (index > 0 && isNameCharacter(sql.charCodeAt(index - 1))) {
      // A digit inside a name (t1, col_2) or after a dot (t.1) is no number of its own.
      index++;
    } else if (code === DOT && !isDigit(sql.charCodeAt(index + 1))) {
      index++;
    } else {
      NUMBER.lastIndex = index;
      const number = NUMBER.exec(sql);
      if (!number) return undefined;
      const end = index + number[0].length;
      if (end < length && isNameCharacter(sql.charCodeAt(end))) return undefined;
      constants?.push(number[0]);
      parts.push(sql.slice(copied, index), '?');
      copied = index = end;
    }
  }
  parts.push(sql.slice(copied));
  return parts.join('');
}

/** Longer texts are parsed by the engine each time: the scan runs on the event loop (~8 µs per KiB here). */
const MAX_SHAPED_LENGTH = 16 * 1024;
/** What may open a string, a quoted name, a comment or a number. */
const SPECIAL = /['"\-/.0-9]/g;
const NUMBER = /(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9]+)?/y;
const QUOTE = 0x27;
const DOUBLE_QUOTE = 0x22;
const DASH = 0x2d;
const SLASH = 0x2f;
const STAR = 0x2a;
const DOT = 0x2e;

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** A letter, a digit, `_` or `.`: a number right after one is part of a name or a qualified name. */
function isNameCharacter(code: number): boolean {
  return isDigit(code) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f || code === DOT;
}

/** A letter, a digit, `_` or `&` before a quote: a prefixed string (E'...', U&'...', X'...'). */
function isPrefixCharacter(code: number): boolean {
  return (isDigit(code) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f || code === 0x26);
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
