import { createInterface, type Interface } from 'node:readline';
import type { OutputFormat } from '../arguments.js';
import { EXIT_FAILURE, EXIT_OK } from '../errors.js';
import { writeTo, type CliIo } from '../output.js';
import type { QueryTransport } from '../transport/query-transport.js';
import { HISTORY_LIMIT, QueryHistory, historyPath } from './history.js';
import { Completer } from './completion.js';
import { needsPager, page, pagerCommand } from './pager.js';
import { BANNER, BANNER_HINT } from './repl-commands.js';
import { enableReverseSearch } from './reverse-search.js';
import { PROMPT, ReplSession } from './repl-session.js';

export interface ReplOptions {
  transport: QueryTransport;
  io: CliIo;
  format: OutputFormat;
}

/**
 * The interactive `quarry sql`. Lines are queued and handled one at a time, so text typed
 * (or piped) while a query runs waits its turn instead of racing it. On a terminal,
 * readline reports Ctrl-C itself; on piped input a real SIGINT does the same job.
 */
export function runRepl({ transport, io, format }: ReplOptions): Promise<number> {
  const terminal = Boolean(io.stdin.isTTY && io.stdout.isTTY);
  const history = new QueryHistory(historyPath(io.env), (message) => io.stderr.write(`${message}\n`));
  const completer = new Completer(transport);
  const readline: Interface = createInterface({
    input: io.stdin,
    output: io.stdout,
    terminal,
    history: terminal ? history.load() : [],
    historySize: HISTORY_LIMIT,
    prompt: PROMPT,
    ...(terminal ? { completer: (line: string, callback: (error: Error | null, result: [string[], string]) => void) => void completer.complete(line).then((result) => callback(null, result), () => callback(null, [[], line])) } : {}),
  });
  // node:readline keeps recall lines, newest first, in this (untyped) array.
  const recall = () => (readline as unknown as { history?: string[] }).history;
  const session = new ReplSession({
    transport,
    out: io.stdout,
    env: io.env,
    format,
    history,
    clearRecall: () => {
      const lines = recall();
      if (lines) lines.length = 0;
    },
    recallStatement: (lines, statement) => {
      const entries = recall();
      if (!entries) return;
      entries.splice(0, Math.min(lines, entries.length), statement);
    },
    ...(terminal ? { terminal: { columns: () => (io.stdout as { columns?: number }).columns, show: (text: string) => showOnTerminal(text, io, readline) } } : {}),
  });
  if (terminal) enableReverseSearch(readline, () => session.prompt);

  const queue: string[] = [];
  let busy = false;
  let inputClosed = false;
  let finished = false;
  /** Ctrl-C on an empty line once: a second one in a row leaves. */
  let interruptedOnEmpty = false;

  return new Promise<number>((resolve) => {
    const finish = () => {
      if (finished) return;
      finished = true;
      // Piped input is not echoed, so the transcript's last prompt still wants its line end.
      if (!terminal) io.stdout.write('\n');
      process.off('SIGINT', onInterrupt);
      if (!inputClosed) readline.close();
      // Piped input is a script: report failed statements through the exit code.
      resolve(!terminal && session.failures > 0 ? EXIT_FAILURE : EXIT_OK);
    };

    const showPrompt = () => {
      // Piped input may end before its lines are handled; readline refuses prompt() once
      // closed, but the prompts still belong in the transcript.
      if (inputClosed) {
        io.stdout.write(session.prompt);
        return;
      }
      readline.setPrompt(session.prompt);
      readline.prompt();
    };

    const pump = async () => {
      if (busy) return;
      busy = true;
      while (queue.length > 0 && !finished) {
        const line = queue.shift()!;
        if ((await session.handleLine(line)) === 'exit') {
          finish();
          break;
        }
        showPrompt();
      }
      busy = false;
      if (inputClosed) endOfInput();
    };

    /** Input ended (Ctrl-D, or the end of piped text): close the last prompt's line, then leave. */
    const endOfInput = () => {
      if (finished) return;
      if (terminal) io.stdout.write('\n');
      finish();
    };

    function onInterrupt() {
      if (session.cancelQuery()) return;
      const typed = terminal ? readline.line : '';
      if (typed !== '' || session.hasPendingStatement || !interruptedOnEmpty) {
        // On an empty line the first Ctrl-C only says how to leave (psql users press it to clear).
        const hint = typed === '' && !session.hasPendingStatement;
        interruptedOnEmpty = hint;
        session.cancelInput();
        queue.length = 0;
        // Leave the cancelled text visible, marked ^C, then empty readline's line buffer
        // (Ctrl-E, Ctrl-U) so the fresh prompt below starts blank.
        io.stdout.write(hint ? '^C (press Ctrl-C again or Ctrl-D to leave)\n' : '^C\n');
        if (terminal) {
          readline.write(null, { ctrl: true, name: 'e' });
          readline.write(null, { ctrl: true, name: 'u' });
        }
        showPrompt();
        return;
      }
      if (terminal) io.stdout.write('\n');
      finish();
    }

    readline.on('line', (line) => {
      interruptedOnEmpty = false;
      queue.push(line);
      void pump();
    });
    readline.on('SIGINT', onInterrupt);
    process.on('SIGINT', onInterrupt);
    readline.on('close', () => {
      inputClosed = true;
      if (!busy) endOfInput();
    });

    io.stdout.write(`${BANNER}\n${BANNER_HINT}\n\n`);
    showPrompt();
  });
}

/**
 * Table output on a terminal: through the pager when it is taller than the screen (input
 * paused meanwhile: the pager reads the keys), else written as it is.
 */
async function showOnTerminal(text: string, io: CliIo, readline: Interface): Promise<void> {
  const command = pagerCommand(io.env);
  if (command === undefined || !needsPager(text, (io.stdout as { rows?: number }).rows)) {
    await writeTo(io.stdout, text);
    return;
  }
  const stdin = io.stdin as NodeJS.ReadStream;
  readline.pause();
  stdin.setRawMode?.(false);
  try {
    if (!(await page(text, command))) await writeTo(io.stdout, text);
  } finally {
    stdin.setRawMode?.(true);
    readline.resume();
  }
}
