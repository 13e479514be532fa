/**
 * Runs the `quarry` client as users do, in a child process (`node --import tsx
 * cli/quarry/main.ts ...`), with its own QUARRY_HOME and no colours.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { temporaryDirectory } from '../../helpers/temporary-directory.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliEnvironment {
  /** Extra variables; QUARRY_API_KEY from the test's own environment is never inherited. */
  env?: Record<string, string>;
  /** A QUARRY_HOME folder; a fresh temporary one when omitted. */
  home?: string;
}

export function temporaryHome(): string {
  return temporaryDirectory('quarry-cli-test-');
}

function spawnQuarry(args: readonly string[], options: CliEnvironment, terminal?: TerminalSize): ChildProcessWithoutNullStreams {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', QUARRY_HOME: options.home ?? temporaryHome(), ...options.env };
  if (!options.env || !('QUARRY_API_KEY' in options.env)) delete env['QUARRY_API_KEY'];
  const command = [process.execPath, '--import', 'tsx', 'cli/quarry/main.ts', ...args];
  if (!terminal) return spawn(command[0]!, command.slice(1), { cwd: repositoryRoot, env });
  // A real pseudo-terminal (pty_bridge.py): readline, key handling, widths and pagers as a user gets them.
  env['TERM'] = 'xterm';
  return spawn('python3', [fileURLToPath(new URL('pty_bridge.py', import.meta.url)), String(terminal.columns), String(terminal.rows), ...command], { cwd: repositoryRoot, env });
}

export interface TerminalSize {
  columns: number;
  rows: number;
}

/**
 * Starts the client in a real pseudo-terminal of the given size: `write` sends keys as typed
 * (`\r` is Enter, `\u0003` Ctrl-C, `\u0004` Ctrl-D, `\t` Tab), `stdout` is what the terminal
 * shows, escape sequences included (`screen` has them removed).
 */
export function startQuarryInTerminal(args: readonly string[], options: CliEnvironment & Partial<TerminalSize> = {}): QuarrySession {
  return new QuarrySession(spawnQuarry(args, options, { columns: options.columns ?? 100, rows: options.rows ?? 40 }));
}

/** Terminal output without its control sequences (cursor moves, erases, colours). */
export function withoutEscapes(text: string): string {
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\u001b[()][A-Z0-9]/g, '').replace(/\r/g, '');
}

/** Runs the client to completion, feeding `input` on stdin. */
export function runQuarry(args: readonly string[], options: CliEnvironment & { input?: string } = {}): Promise<CliResult> {
  const child = spawnQuarry(args, options);
  const session = new QuarrySession(child);
  child.stdin.end(options.input ?? '');
  return session.exited;
}

/** Starts the client for a conversation: write lines, wait for output, then end or signal it. */
export function startQuarry(args: readonly string[], options: CliEnvironment = {}): QuarrySession {
  return new QuarrySession(spawnQuarry(args, options));
}

export class QuarrySession {
  stdout = '';
  stderr = '';
  readonly exited: Promise<CliResult>;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      this.stdout += text;
      for (const listener of this.listeners) listener();
    });
    child.stderr.on('data', (text: string) => {
      this.stderr += text;
    });
    this.exited = new Promise((resolve) => {
      child.on('close', (code) => resolve({ code, stdout: this.stdout, stderr: this.stderr }));
    });
  }

  write(text: string): void {
    this.child.stdin.write(text);
  }

  /** What was shown so far, without control sequences. */
  get screen(): string {
    return withoutEscapes(this.stdout);
  }

  endInput(): void {
    this.child.stdin.end();
  }

  signal(name: NodeJS.Signals): void {
    this.child.kill(name);
  }

  /** Resolves when stdout has `count` occurrences of `text`; rejects after `timeoutMs` with what was seen. */
  waitForOutput(text: string, count = 1, timeoutMs = 20_000): Promise<void> {
    const satisfied = () => this.stdout.split(text).length - 1 >= count || withoutEscapes(this.stdout).split(text).length - 1 >= count;
    if (satisfied()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners.delete(check);
        reject(new Error(`timed out waiting for ${JSON.stringify(text)} x${count}; stdout so far:\n${this.stdout}\nstderr:\n${this.stderr}`));
      }, timeoutMs);
      const check = () => {
        if (!satisfied()) return;
        clearTimeout(timer);
        this.listeners.delete(check);
        resolve();
      };
      this.listeners.add(check);
    });
  }
}
