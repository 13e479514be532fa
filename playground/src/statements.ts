/**
 * Splits an editor's text into SQL statements at top-level semicolons, so Ctrl/Cmd-Enter can run
 * the statement under the cursor. Semicolons inside quoted strings, quoted identifiers, dollar
 * quotes and comments do not split. No DOM here: the splitter is unit-tested in Node.
 */
export interface StatementRange {
  /** Offsets into the text: `text.slice(from, to)` is the statement, trimmed of outer whitespace. */
  readonly from: number;
  readonly to: number;
}

/** Where the text after `start` stops being a quoted string, identifier or comment (exclusive). */
function skipQuoted(text: string, start: number): number {
  const opener = text[start];
  if (opener === "'" || opener === '"') {
    let index = start + 1;
    while (index < text.length) {
      if (text[index] === opener) {
        // A doubled quote is an escaped quote, not the end.
        if (text[index + 1] === opener) index += 2;
        else return index + 1;
      } else index += 1;
    }
    return text.length;
  }
  if (opener === '-' && text[start + 1] === '-') {
    const end = text.indexOf('\n', start);
    return end === -1 ? text.length : end + 1;
  }
  if (opener === '/' && text[start + 1] === '*') {
    const end = text.indexOf('*/', start + 2);
    return end === -1 ? text.length : end + 2;
  }
  if (opener === '$') {
    const tag = /^\$[A-Za-z_0-9]*\$/.exec(text.slice(start, start + 64))?.[0];
    if (tag !== undefined) {
      const end = text.indexOf(tag, start + tag.length);
      return end === -1 ? text.length : end + tag.length;
    }
  }
  return start;
}

/** Every non-empty statement of `text`, in order (comments-only pieces count as empty). */
export function splitStatements(text: string): StatementRange[] {
  const ranges: StatementRange[] = [];
  let pieceStart = 0;
  let hasCode = false;
  const close = (end: number) => {
    if (hasCode) ranges.push(trimmed(text, pieceStart, end));
    pieceStart = end + 1;
    hasCode = false;
  };
  let index = 0;
  while (index < text.length) {
    const character = text[index]!;
    const after = skipQuoted(text, index);
    if (after !== index) {
      // Strings and quoted identifiers are code; comments are not.
      if (character === "'" || character === '"' || character === '$') hasCode = true;
      index = after;
      continue;
    }
    if (character === ';') close(index);
    else if (!/\s/.test(character)) hasCode = true;
    index += 1;
  }
  close(text.length);
  return ranges;
}

function trimmed(text: string, from: number, to: number): StatementRange {
  let start = from;
  let end = to;
  while (start < end && /\s/.test(text[start]!)) start += 1;
  while (end > start && /\s/.test(text[end - 1]!)) end -= 1;
  return { from: start, to: end };
}

/**
 * The statement the cursor is in: the one whose range holds it, else the nearest one before it
 * (the cursor just after `SELECT 1;` runs `SELECT 1`), else the first one after it.
 */
export function statementAt(text: string, cursor: number): string | undefined {
  const ranges = splitStatements(text);
  const containing = ranges.find((range) => cursor >= range.from && cursor <= range.to);
  const before = [...ranges].reverse().find((range) => range.to <= cursor);
  const chosen = containing ?? before ?? ranges[0];
  return chosen === undefined ? undefined : text.slice(chosen.from, chosen.to);
}
