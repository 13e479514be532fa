import type { Interface } from 'node:readline';

interface Key {
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
}

/** The parts of node:readline's Interface a key handler needs (stable since Node 10, untyped). */
interface ReadlineInternals {
  _ttyWrite(text: string | undefined, key: Key | undefined): void;
  _refreshLine(): void;
  line: string;
  cursor: number;
  history: string[];
}

/**
 * Ctrl-R as in bash and psql: `(reverse-i-search)'text': match`. Typing narrows the search
 * (case-insensitive) to older entries holding the text, Ctrl-R again finds the next older one,
 * Backspace widens it; Enter runs the match, any other key (arrows, Tab, Ctrl-E) keeps it on
 * the line to edit, Esc or Ctrl-G puts back what was typed before. node:readline has no
 * search of its own, so this wraps its key handler.
 */
export function enableReverseSearch(readline: Interface, prompt: () => string): void {
  const internal = readline as unknown as ReadlineInternals;
  const handleKey = internal._ttyWrite.bind(readline);
  let search: { query: string; index: number; before: string; failed: boolean } | undefined;

  const show = () => {
    if (!search) return;
    readline.setPrompt(`(${search.failed ? 'failed ' : ''}reverse-i-search)'${search.query}': `);
    internal.line = search.index >= 0 ? internal.history[search.index]! : search.query === '' ? '' : internal.line;
    internal.cursor = internal.line.length;
    internal._refreshLine();
  };
  /** The first entry at `from` or older holding the query; keeps the last match when none does. */
  const find = (from: number) => {
    if (!search) return;
    const wanted = search.query.toLowerCase();
    for (let index = Math.max(0, from); index < internal.history.length; index++) {
      if (internal.history[index]!.toLowerCase().includes(wanted)) {
        search.index = index;
        search.failed = false;
        return;
      }
    }
    search.failed = wanted !== '';
  };
  const leave = (line: string) => {
    search = undefined;
    readline.setPrompt(prompt());
    internal.line = line;
    internal.cursor = line.length;
    internal._refreshLine();
  };

  internal._ttyWrite = (text, key) => {
    if (!search) {
      if (key?.ctrl && key.name === 'r') {
        search = { query: '', index: -1, before: internal.line, failed: false };
        show();
        return;
      }
      handleKey(text, key);
      return;
    }
    if (key?.ctrl && key.name === 'r') {
      find(search.index + 1);
      show();
      return;
    }
    if (key?.name === 'escape' || (key?.ctrl && key.name === 'g')) {
      leave(search.before);
      return;
    }
    if (key?.name === 'backspace') {
      search.query = search.query.slice(0, -1);
      search.index = -1;
      find(0);
      show();
      return;
    }
    if (text !== undefined && text.length === 1 && text >= ' ' && !key?.ctrl && !key?.meta) {
      search.query += text;
      find(Math.max(0, search.index));
      show();
      return;
    }
    // Enter, Ctrl-C, arrows, Tab...: the match stays on the line, and the key does what it does.
    leave(internal.line);
    handleKey(text, key);
  };
}
