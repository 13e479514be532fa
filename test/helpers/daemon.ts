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

/** Runs `quarryd` from source as a real process on a free port (waits until it listens). */
export async function startDaemon(args: string[], options: { env?: NodeJS.ProcessEnv } = {}): Promise<Daemon> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repositoryRoot, 'cli/quarryd/main.ts'), ...args, '--http', '127.0.0.1:0', '--flight', '127.0.0.1:0'], {
    cwd: repositoryRoot,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /HTTP listening endpoint=(http:\/\/[\d.:]+)/.exec(output);
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
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
