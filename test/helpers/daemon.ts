import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repositoryRoot } from './runtime.js';

export interface Daemon {
  child: ChildProcess;
  baseUrl: string;
  /** Everything the daemon wrote to stderr so far. */
  output(): string;
  exited: Promise<number | null>;
}

/** Waits until the daemon's stderr matches `pattern` (e.g. a log line after SIGHUP); returns the match. */
export async function waitForOutput(daemon: Daemon, pattern: RegExp, timeoutMs = 10_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(daemon.output());
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`quarryd did not log ${pattern} within ${timeoutMs} ms:\n${daemon.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The Flight endpoint (`grpc://` or `grpc+tls://host:port`) once the daemon logged it. */
export async function flightEndpointOf(daemon: Daemon): Promise<string> {
  return (await waitForOutput(daemon, /Flight listening endpoint=(grpc(?:\+tls)?:\/\/[\d.:]+)/))[1]!;
}

/**
 * Runs `quarryd` as a real process on a free port (waits until it listens): from source under
 * tsx, or `shipped` (bin/quarryd.js on the built dist/, as users run it). `nodeArguments` go
 * to Node before the script.
 */
export async function startDaemon(args: string[], options: { env?: NodeJS.ProcessEnv; nodeArguments?: string[]; shipped?: boolean } = {}): Promise<Daemon> {
  const entry = options.shipped ? [path.join(repositoryRoot, 'bin/quarryd.js')] : ['--import', 'tsx', path.join(repositoryRoot, 'cli/quarryd/main.ts')];
  const child = spawn(process.execPath, [...(options.nodeArguments ?? []), ...entry, ...args, '--http', '127.0.0.1:0', '--flight', '127.0.0.1:0'], {
    cwd: repositoryRoot,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /HTTP listening endpoint=(https?:\/\/[\d.:]+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stderr!.on('data', onData);
    exited.then((code) => reject(new Error(`quarryd exited with ${code} before listening:\n${output}`)));
  });
  return { child, baseUrl, output: () => output, exited };
}

/** Runs a CLI entry (quarryd or quarry) to completion and collects its output. */
export function runCommand(entry: 'quarryd' | 'quarry', args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repositoryRoot, `cli/${entry}/main.ts`), ...args], {
      cwd: repositoryRoot,
      env: { ...process.env, ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(options.input ?? '');
    // 'close', not 'exit': 'exit' can come before the last of stdout and stderr has been read.
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
