import type { OutputFormat } from '../arguments.js';
import { CancelledError, ServerError, describeError } from '../errors.js';
import { red, writeTo } from '../output.js';
import { StatementBuffer } from '../sql/statement-splitter.js';
import { runStatement } from '../statement-runner.js';
import type { QueryTransport } from '../transport/query-transport.js';
import type { QueryHistory } from './history.js';
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
  /** Statements that failed; piped (non-interactive) input exits 1 when any did. */
  failures = 0;

  constructor(private readonly options: ReplSessionOptions) {}

  get prompt(): string {
    return this.buffer.isEmpty ? PROMPT : CONTINUATION_PROMPT;
  }

  get hasPendingStatement(): boolean {
    return !this.buffer.isEmpty;
  }

  /** Handles one entered line; resolves to 'exit' when the user asked to leave. */
  async handleLine(line: string): Promise<'continue' | 'exit'> {
    this.options.history.add(line);
    if (this.buffer.isEmpty) {
      const command = parseReplCommand(line);
      if (command) {
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
        }
      }
    }
    for (const statement of this.buffer.push(line)) {
      // A cancelled query also cancels the statements typed after it on the same line.
      if ((await this.execute(statement)) === 'cancelled') break;
    }
    return 'continue';
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
  }

  private async execute(sql: string): Promise<'done' | 'failed' | 'cancelled'> {
    const controller = new AbortController();
    this.running = controller;
    try {
      await runStatement(this.options.transport, sql, { format: this.options.format, out: this.options.out, signal: controller.signal });
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
