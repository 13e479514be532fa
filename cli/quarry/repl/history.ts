import { appendFileSync, chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The REPL's query history: one typed line per file line, in `~/.quarry/query_history.txt`
 * (or `$QUARRY_HOME/query_history.txt`). Queries can hold secrets and customer data, so
 * the file is readable by its owner only (0600) and its folder is 0700.
 */
export const HISTORY_FILE_NAME = 'query_history.txt';

/** Lines kept in memory for arrow-key recall; the file is trimmed back when it grows to twice that. */
export const HISTORY_LIMIT = 1000;

export function historyPath(env: NodeJS.ProcessEnv): string {
  const home = env['QUARRY_HOME'] || join(homedir(), '.quarry');
  return join(home, HISTORY_FILE_NAME);
}

export class QueryHistory {
  /** Set after the first failed write, so a read-only home warns once instead of on every line. */
  private failed = false;

  constructor(
    readonly path: string,
    private readonly warn: (message: string) => void,
  ) {}

  /** Saved lines, newest first (the order node:readline expects). */
  load(): string[] {
    let lines: string[];
    try {
      lines = readFileSync(this.path, 'utf8').split('\n').filter((line) => line.trim() !== '');
    } catch {
      return [];
    }
    if (lines.length > 2 * HISTORY_LIMIT) {
      lines = lines.slice(-HISTORY_LIMIT);
      this.rewrite(lines);
    }
    return lines.slice(-HISTORY_LIMIT).reverse();
  }

  /** Appends one entered line. Newlines inside it (pasted text) are kept apart as separate lines. */
  add(line: string): void {
    if (line.trim() === '') return;
    this.write(() => {
      this.ensureFolder();
      appendFileSync(this.path, `${line.replace(/\r?\n/g, '\n')}\n`, { mode: 0o600 });
      // appendFile's mode only applies when it creates the file; tighten an older, looser one.
      chmodSync(this.path, 0o600);
    });
  }

  clear(): void {
    this.rewrite([]);
  }

  private rewrite(lines: readonly string[]): void {
    this.write(() => {
      this.ensureFolder();
      writeFileSync(this.path, lines.map((line) => `${line}\n`).join(''), { mode: 0o600 });
      chmodSync(this.path, 0o600);
    });
  }

  private ensureFolder(): void {
    mkdirSync(join(this.path, '..'), { recursive: true, mode: 0o700 });
  }

  private write(action: () => void): void {
    if (this.failed) return;
    try {
      action();
    } catch (error) {
      this.failed = true;
      this.warn(`warning: query history not saved to ${this.path}: ${(error as Error).message}`);
    }
  }
}
