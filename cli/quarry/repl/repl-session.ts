import type { OutputFormat } from '../arguments.js';
import { CancelledError, ServerError, describeError } from '../errors.js';
import { red, writeTo } from '../output.js';
import { StatementBuffer } from '../sql/statement-splitter.js';
import { runStatement } from '../statement-runner.js';
import type { QueryTransport } from '../transport/query-transport.js';
import type { QueryHistory } from './history.js';
import { drawBoxTable } from '../render/box-table.js';
import { collectResult } from '../render/result-collector.js';
import { parseReplCommand, REPL_HELP } from './repl-commands.js';

export const PROMPT = 'sql> ';
export const CONTINUATION_PROMPT = '  -> ';

const CLEAR_SCREEN = '\u001b[2J\u001b[3J\u001b[H';

export interface ReplSessionOptions {
  transport: QueryTransport;
  out: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  format: OutputFormat;
  history: QueryHistory;
  /** Forgets the lines readline keeps for arrow-key recall (`.clear history`). */
  clearRecall: () => void;
  /** A statement typed over `lines` lines becomes one recall entry in their place. */
  recallStatement?: (lines: number, statement: string) => void;
  /** On a terminal: its width (tables are fitted to it), a spinner for slow queries, a pager for long results. */
  terminal?: { columns: () => number | undefined; show: (text: string) => Promise<void> };
}

/**
 * What the REPL does with each line, apart from reading it: commands, statement
 * collection, running queries, remembering the last error. Kept free of readline so the
 * behaviour is the same on a terminal and on piped input.
 */
export class ReplSession {
  private readonly buffer = new StatementBuffer();
  private lastError: { error: unknown; sql: string } | undefined;
  private running: AbortController | undefined;
  /** The lines of the statement being typed, for its history entry. */
  private statementLines: string[] = [];
  private format: OutputFormat | 'line';
  private expanded = false;
  private timing = true;
  /** Statements that failed; piped (non-interactive) input exits 1 when any did. */
  failures = 0;

  constructor(private readonly options: ReplSessionOptions) {
    this.format = options.format;
  }

  get prompt(): string {
    return this.buffer.isEmpty ? PROMPT : CONTINUATION_PROMPT;
  }

  get hasPendingStatement(): boolean {
    return !this.buffer.isEmpty;
  }

  /** Handles one entered line; resolves to 'exit' when the user asked to leave. */
  async handleLine(line: string): Promise<'continue' | 'exit'> {
    if (this.buffer.isEmpty) {
      const command = parseReplCommand(line);
      if (command) {
        this.options.history.add(line);
        switch (command.kind) {
          case 'exit':
            return 'exit';
          case 'help':
            await this.write(REPL_HELP);
            return 'continue';
          case 'last-error':
            await this.write(this.describeLastError());
            return 'continue';
          case 'clear-screen':
            await this.write(CLEAR_SCREEN);
            return 'continue';
          case 'clear-history':
            this.options.history.clear();
            this.options.clearRecall();
            await this.write('History cleared.\n');
            return 'continue';
          case 'sql':
            await this.execute(command.sql);
            return 'continue';
          case 'describe':
            await this.describe(command.table, command.style);
            return 'continue';
          case 'expanded':
            this.expanded = command.on ?? !this.expanded;
            await this.write(`Expanded display is ${this.expanded ? 'on' : 'off'}.\n`);
            return 'continue';
          case 'timing':
            this.timing = command.on ?? !this.timing;
            await this.write(`Timing is ${this.timing ? 'on' : 'off'}.\n`);
            return 'continue';
          case 'mode':
            if (command.mode === undefined) await this.write(`current output mode: ${this.format}\n`);
            else this.format = command.mode;
            return 'continue';
          case 'invalid':
            await this.write(`${command.message}\n`);
            return 'continue';
        }
      }
    }
    if (line.trim() !== '') this.statementLines.push(line);
    const statements = this.buffer.push(line);
    // The statement is whole (or the line was a comment): it goes into the history as one entry.
    if (this.buffer.isEmpty && this.statementLines.length > 0) this.rememberStatement();
    for (const statement of statements) {
      // A cancelled query also cancels the statements typed after it on the same line.
      if ((await this.execute(statement)) === 'cancelled') break;
    }
    return 'continue';
  }

  private rememberStatement(): void {
    const lines = this.statementLines;
    this.statementLines = [];
    const entry = lines.map((line) => line.trim()).join(' ');
    this.options.history.add(entry);
    if (lines.length > 1) this.options.recallStatement?.(lines.length, entry);
  }

  /** Ctrl-C while a query runs: aborts it. Returns false when nothing was running. */
  cancelQuery(): boolean {
    if (!this.running) return false;
    this.running.abort();
    return true;
  }

  /** Ctrl-C while typing: drops the statement collected so far. */
  cancelInput(): void {
    this.buffer.clear();
    this.statementLines = [];
  }

  private async execute(sql: string): Promise<'done' | 'failed' | 'cancelled'> {
    const controller = new AbortController();
    this.running = controller;
    try {
      const terminal = this.options.terminal;
      const columns = terminal?.columns();
      await runStatement(this.options.transport, sql, {
        format: this.format === 'line' ? 'table' : this.format,
        out: this.options.out,
        signal: controller.signal,
        display: {
          layout: this.format === 'line' ? 'line' : this.expanded ? 'expanded' : 'table',
          timing: this.timing,
          ...(columns ? { maxTableWidth: columns } : {}),
        },
        ...(terminal ? { spinner: true, show: terminal.show } : {}),
      });
      return 'done';
    } catch (error) {
      if (error instanceof CancelledError || controller.signal.aborted) {
        await this.write('Query cancelled.\n');
        return 'cancelled';
      }
      this.lastError = { error, sql };
      this.failures += 1;
      await this.write(`${red(describeError(error, 'query'), this.options.out, this.options.env)}\n`);
      return 'failed';
    } finally {
      this.running = undefined;
    }
  }

  /**
   * `\d NAME` (its columns: name, type, nullable, as a table without a types row) and
   * `.schema NAME` (as CREATE TABLE), read from `information_schema.columns` like any query, so
   * access rules apply alike; one query either way.
   */
  private async describe(table: string, style: 'columns' | 'create'): Promise<void> {
    const parts = table.replace(/"/g, '').split('.');
    const name = parts.at(-1)!;
    const schema = parts.length > 1 ? parts.at(-2) : undefined;
    const sql = `SELECT column_name AS "Column", data_type AS "Type", is_nullable AS "Nullable" FROM information_schema.columns WHERE table_name = ${literal(name)}${schema ? ` AND table_schema = ${literal(schema)}` : ''} ORDER BY table_schema, ordinal_position`;
    try {
      const result = await collectResult(await this.options.transport.queryArrow(sql, {}));
      if (result.rows.length === 0) {
        await this.write(`Did not find any table named "${table}". ${style === 'columns' ? '\\dt' : '.tables'} lists them.\n`);
        return;
      }
      if (style === 'columns') {
        const columns = this.options.terminal?.columns();
        await this.write(drawBoxTable(result.columns.map((column) => ({ name: column.name, align: 'left' })), result.rows, columns ? { maxTableWidth: columns } : {}).text + '\n');
        return;
      }
      const columns = result.rows.map(([column, type, nullable]) => `${quoteName(column ?? '')} ${type}${nullable === 'NO' ? ' NOT NULL' : ''}`);
      await this.write(`CREATE TABLE ${parts.map(quoteName).join('.')}(${columns.join(', ')});\n`);
    } catch (error) {
      this.lastError = { error, sql };
      this.failures += 1;
      await this.write(`${red(describeError(error, 'query'), this.options.out, this.options.env)}\n`);
    }
  }

  private describeLastError(): string {
    if (!this.lastError) return 'No previous error recorded.\n';
    const { error, sql } = this.lastError;
    const lines: string[] = [];
    if (error instanceof ServerError) {
      lines.push(`Status: ${error.statusText}`);
      if (error.code) lines.push(`Code: ${error.code}`);
      lines.push(`Message: ${error.serverMessage}`);
    } else {
      lines.push(`Message: ${error instanceof Error ? error.message : String(error)}`);
      const cause = error instanceof Error ? error.cause : undefined;
      if (cause instanceof Error) lines.push(`Cause: ${cause.message}`);
    }
    lines.push(`Statement: ${sql}`);
    return `${lines.join('\n')}\n`;
  }

  private write(text: string): Promise<void> {
    return writeTo(this.options.out, text);
  }
}

function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** A name as SQL needs it: bare when it is a plain lower-case word, else in double quotes. */
function quoteName(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}
