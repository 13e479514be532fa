import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface WrkResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

export function requireWrk(): void {
  if (spawnSync('wrk', ['--version']).error) {
    throw new Error('wrk is not installed: the cache-hit benchmark drives load with it (Debian: apt-get install -y wrk)');
  }
}

/**
 * Each request's body is `sql` followed by a number no other request sends, in this run or any
 * other of this process: the run's base (10^14, 10^13 more each run: below 2^53, as wrk's Lua
 * counts in doubles, and far above the numbers the benches' sequential clients append) +
 * thread number × 10^11 + the thread's count. Every
 * statement text is new to the server: with the count alone, every run sent the numbers the
 * run before it had sent (and the sequential phase before them), which a server that keeps
 * anything per text would have answered from what it kept.
 */
let nextRunBase = 100_000_000_000_000;
function newTextEachRequest(): string {
  const base = nextRunBase;
  nextRunBase += 10_000_000_000_000;
  return `
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("thread_number", threads)
end
local sent = 0
function request()
  sent = sent + 1
  return wrk.format(nil, nil, nil, wrk.body .. string.format("%d", ${base} + thread_number * 100000000000 + sent))
end
`;
}

/**
 * `wrk -c<connections>` POSTing the SQL to `url` for `seconds`; parses throughput and latency
 * percentiles. With `newTextEachRequest`, a number is appended to the SQL, different for every request.
 */
export async function runWrk(url: string, sql: string, options: { connections: number; threads: number; seconds: number; headers?: Record<string, string>; newTextEachRequest?: boolean }): Promise<WrkResult> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'quarry-wrk-'));
  const script = path.join(directory, 'post.lua');
  const extra = Object.entries(options.headers ?? {}).map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}\n`).join('');
  writeFileSync(script, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(sql)}\nwrk.headers["Content-Type"] = "text/plain"\nwrk.headers["Accept"] = "application/json"\n${extra}${options.newTextEachRequest ? newTextEachRequest() : ''}`);
  try {
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn('wrk', [`-t${options.threads}`, `-c${options.connections}`, `-d${options.seconds}s`, '--latency', '-s', script, url]);
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited with ${code}:\n${text}`))));
    });
    const requestsPerSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? NaN);
    const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0);
    return { requestsPerSecond, p50Ms: percentile(output, '50%'), p99Ms: percentile(output, '99%'), non2xx };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** A line of wrk's latency distribution, e.g. `99%    3.21ms`, in milliseconds. */
function percentile(output: string, label: string): number {
  const match = new RegExp(`^\\s+${label.replace('%', '%')}\\s+([\\d.]+)(us|ms|s)`, 'm').exec(output);
  if (!match) return NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}
