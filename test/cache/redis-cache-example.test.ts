import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { startDaemon, type Daemon } from '../helpers/daemon.js';
import { repositoryRoot, writeManifestDirectory } from '../helpers/runtime.js';
import { eventually } from './cache-helpers.js';
import { freePort } from '../helpers/free-port.js';
import { ensureExamplePackage } from '../helpers/example-package.js';

const REDIS_MISSING = 'redis-server is not installed: the Redis cache example needs it (Debian: apt-get install -y redis-server)';

/** A throw-away redis-server on a free loopback port, without persistence. */
async function startRedis(): Promise<{ url: string; process: ChildProcess }> {
  if (spawnSync('redis-server', ['--version']).error) throw new Error(REDIS_MISSING);
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
    child.stdout!.on('data', () => {
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}:\n${output}`)));
  });
  return { url: `redis://127.0.0.1:${port}`, process: child };
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function ready(daemon: Daemon): Promise<void> {
  await eventually(async () => (await fetch(`${daemon.baseUrl}/v1/ready`).catch(() => undefined))?.status === 200, 30_000);
}

async function query(daemon: Daemon, sql: string): Promise<{ cache: string | null; body: unknown }> {
  const response = await fetch(`${daemon.baseUrl}/v1/sql`, { method: 'POST', body: sql, headers: { accept: 'application/json' } });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  return { cache: response.headers.get('x-cache'), body: await response.json() };
}

test('the Redis cache example serves HITs across two quarryd processes, and shares invalidation', async (t) => {
  await ensureExamplePackage();
  const redis = await startRedis();
  const plugin = path.join(repositoryRoot, 'examples/plugins/redis-cache/index.ts');
  const directory = writeManifestDirectory({
    withQuickstartData: true,
    manifest: `
version: v2
kind: Spicepod
name: redis-cache
datasets:
  - from: file:data/orders.parquet
    name: orders
    acceleration:
      enabled: true
plugins:
  - name: results-cache
    enabled: false
  - from: ${plugin}
    params:
      url: ${redis.url}
      item_ttl: 1m
`,
  });
  const daemons: Daemon[] = [];
  try {
    daemons.push(await startDaemon([directory]), await startDaemon([directory]));
    const [first, second] = daemons as [Daemon, Daemon];
    await Promise.all([ready(first), ready(second)]);
    t.regex(first.output(), /results cached in Redis/);
    const sql = 'SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status';
    const miss = await query(first, sql);
    t.is(miss.cache, 'MISS');
    // The store is asynchronous (a Redis round trip after the last batch).
    await eventually(async () => (await query(second, sql)).cache === 'HIT');
    const hit = await query(second, sql);
    t.is(hit.cache, 'HIT', 'served by the other process, from Redis');
    t.deepEqual(hit.body, miss.body);
    t.is((await query(first, 'select status, COUNT(*) as n from main.orders group by status order by status')).cache, 'HIT', 'plan-keyed');

    const refreshed = await fetch(`${second.baseUrl}/v1/datasets/orders/acceleration/refresh`, { method: 'POST' });
    t.is(refreshed.status, 201);
    t.is((await query(first, sql)).cache, 'MISS', 'a refresh in one process invalidates for all');
  } finally {
    for (const daemon of daemons) await stopProcess(daemon.child);
    await stopProcess(redis.process);
    rmSync(directory, { recursive: true, force: true });
  }
});
