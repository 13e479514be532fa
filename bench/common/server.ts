import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const benchData = path.join(repositoryRoot, 'bench/.data');

/**
 * How benchmarks start quarryd: as shipped, `bin/quarryd.js` over the compiled dist/ (what
 * `npm start` and users run; `npm run bench` rebuilds it first), or from the TypeScript
 * through tsx with QUARRY_FROM_SOURCE=1. tsx's loader and name helpers cost CPU on every
 * request, so figures from source understate the runtime.
 */
export const FROM_SOURCE = process.env['QUARRY_FROM_SOURCE'] === '1';

export function quarrydEntry(): string[] {
  return FROM_SOURCE ? ['--import', 'tsx', path.join(repositoryRoot, 'cli/quarryd/main.ts')] : [path.join(repositoryRoot, 'bin/quarryd.js')];
}

export interface BenchServer {
  process: ChildProcess;
  baseUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts quarryd (see quarrydEntry) on a free port and waits until /v1/ready answers 200.
 * `nodeArguments` go to node before the entry (e.g. `--cpu-prof`), `quarrydArguments` to
 * quarryd (e.g. `-vv`); `onLog` is told quarryd's log output (stderr) as it comes.
 */
export async function startServer(manifestDirectory: string, options: { nodeArguments?: string[]; quarrydArguments?: string[]; onLog?: (text: string) => void } = {}): Promise<BenchServer> {
  const child = spawn(process.execPath, [...(options.nodeArguments ?? []), ...quarrydEntry(), manifestDirectory, '--http', '127.0.0.1:0', '--flight', '127.0.0.1:0', ...(options.quarrydArguments ?? [])], {
    cwd: repositoryRoot,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  let listening = false;
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      options.onLog?.(text);
      if (listening) return;
      log += text;
      const match = /HTTP listening endpoint=(http:\/\/[\d.:]+)/.exec(log);
      if (match) {
        listening = true;
        resolve(match[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`quarryd exited with ${code}:\n${log}`)));
  });
  for (;;) {
    const response = await fetch(`${baseUrl}/v1/ready`).catch(() => undefined);
    if (response?.status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    process: child,
    baseUrl,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Resident set size of a process, in bytes (Linux /proc). */
export function residentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kilobytes * 1024;
}

/** Samples a process's RSS every few milliseconds while `work` runs; returns the peak. */
export async function peakResidentDuring<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peakBytes: number }> {
  let peak = residentBytes(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, residentBytes(pid));
  }, 5);
  try {
    const result = await work();
    peak = Math.max(peak, residentBytes(pid));
    return { result, peakBytes: peak };
  } finally {
    clearInterval(timer);
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export const mebibytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
