/**
 * Finds where SQL statements end: at a `;` that is outside string literals ('...', E'...'
 * with backslash escapes, $tag$...$tag$), quoted identifiers ("...") and comments (`--`,
 * nested `/* *\/`). The REPL sends a statement once its `;` arrives, so this decides
 * whether Enter runs the text or asks for another line.
 */
export interface SplitResult {
  /** Complete statements, trimmed, without their `;`; statements with no code (only comments) are dropped. */
  statements: string[];
  /** Text after the last complete statement; empty when it holds no code and nothing is left open. */
  remainder: string;
}

type State =
  | { kind: 'code' }
  | { kind: 'quoted'; close: string; backslashEscapes: boolean }
  | { kind: 'line-comment' }
  | { kind: 'block-comment'; depth: number }
  | { kind: 'dollar-quoted'; tag: string };

const dollarTag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/;
const identifierCharacter = /[A-Za-z0-9_$]/;
const CODE: State = { kind: 'code' };

export function splitStatements(text: string): SplitResult {
  const statements: string[] = [];
  let state: State = CODE;
  let start = 0;
  let hasCode = false;

  for (let i = 0; i < text.length; i += 1) {
    const character = text[i]!;
    const next = text[i + 1];
    switch (state.kind) {
      case 'code':
        if (character === ';') {
          const statement = text.slice(start, i).trim();
          if (hasCode) statements.push(statement);
          start = i + 1;
          hasCode = false;
        } else if (character === '-' && next === '-') {
          state = { kind: 'line-comment' };
          i += 1;
        } else if (character === '/' && next === '*') {
          state = { kind: 'block-comment', depth: 1 };
          i += 1;
        } else if (character === "'") {
          hasCode = true;
          state = { kind: 'quoted', close: "'", backslashEscapes: isEscapeStringPrefix(text, i) };
        } else if (character === '"') {
          hasCode = true;
          state = { kind: 'quoted', close: '"', backslashEscapes: false };
        } else if (character === '$' && !identifierCharacter.test(text[i - 1] ?? ' ')) {
          const tag = dollarTag.exec(text.slice(i))?.[0];
          hasCode = true;
          if (tag) {
            state = { kind: 'dollar-quoted', tag };
            i += tag.length - 1;
          }
        } else if (!/\s/.test(character)) {
          hasCode = true;
        }
        break;
      case 'quoted':
        if (state.backslashEscapes && character === '\\') i += 1;
        else if (character === state.close) {
          // A doubled quote ('' or "") is an escaped quote, not the end.
          if (next === state.close) i += 1;
          else state = CODE;
        }
        break;
      case 'line-comment':
        if (character === '\n') state = CODE;
        break;
      case 'block-comment':
        if (character === '/' && next === '*') {
          state = { kind: 'block-comment', depth: state.depth + 1 };
          i += 1;
        } else if (character === '*' && next === '/') {
          state = state.depth === 1 ? CODE : { kind: 'block-comment', depth: state.depth - 1 };
          i += 1;
        }
        break;
      case 'dollar-quoted':
        if (character === '$' && text.startsWith(state.tag, i)) {
          i += state.tag.length - 1;
          state = CODE;
        }
        break;
    }
  }

  // A trailing `-- comment` closes at the end of the text; anything else still open (a
  // string, a block comment) means the statement continues on the next line.
  const open = state.kind !== 'code' && state.kind !== 'line-comment';
  const remainder = hasCode || open ? text.slice(start) : '';
  return { statements, remainder };
}

/** `E'...'` (PostgreSQL/DuckDB escape string): the quote follows a lone `E`, not the end of a word like `TYPE'`. */
function isEscapeStringPrefix(text: string, quoteIndex: number): boolean {
  const previous = text[quoteIndex - 1];
  if (previous !== 'E' && previous !== 'e') return false;
  return !identifierCharacter.test(text[quoteIndex - 2] ?? ' ');
}

/**
 * Lines typed in the REPL, collected until statements are complete. Lines are kept joined
 * by newlines so a `--` comment on one line never swallows the next.
 */
export class StatementBuffer {
  private pending = '';

  /** Adds one line; returns the statements it completed (possibly several, possibly none). */
  push(line: string): string[] {
    const text = this.pending === '' ? line : `${this.pending}\n${line}`;
    const { statements, remainder } = splitStatements(text);
    this.pending = remainder;
    return statements;
  }

  /** True when no statement is in progress (the REPL then shows the main prompt). */
  get isEmpty(): boolean {
    return this.pending === '';
  }

  clear(): void {
    this.pending = '';
  }
}
