import test from 'ava';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { ConnectionPool, type IdleLimits } from '../../core/engine/connection-pool.js';

/** Whether a connection still answers (a closed one throws). */
async function answers(connection: DuckDBConnection): Promise<boolean> {
  try {
    await connection.run('SELECT 1');
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Runs `body` with a pool of `limits` over a fresh in-memory engine, both closed after (closing a closed pool does nothing). */
async function withPool(limits: Partial<IdleLimits>, body: (pool: ConnectionPool) => Promise<void>): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:');
  const pool = new ConnectionPool(instance, limits);
  try {
    await body(pool);
  } finally {
    await pool.close(1000);
    instance.closeSync();
  }
}

test('a burst leaves up to max idle connections, closed down to the kept ones once idle long enough; the most recent are lent first', async (t) => {
  await withPool({ kept: 1, max: 3, trimAfterMs: 200 }, async (pool) => {
    const burst = await Promise.all([pool.acquire(), pool.acquire(), pool.acquire(), pool.acquire()]);
    t.is(new Set(burst).size, 4, 'four queries at once hold four connections');
    for (const connection of burst) pool.release(connection);
    t.is(pool.idleCount, 3, 'the fourth connection back is closed: at most 3 idle');
    t.false(await answers(burst[3]!), 'the one past max was closed');

    const again = await pool.acquire();
    t.is(again, burst[2], 'the connection that came back last is lent first');
    pool.release(again);

    await until(() => pool.idleCount === 1, 'idle connections trimmed to the kept one');
    t.false(await answers(burst[0]!), 'the longest idle was closed');
    t.false(await answers(burst[1]!));
    t.true(await answers(burst[2]!), 'the most recently used is the one kept');
    const kept = await pool.acquire();
    t.is(kept, burst[2]);
    pool.release(kept);
  });
});

test('a steady load keeps its connections: none is closed while each is back in use within the idle time', async (t) => {
  await withPool({ kept: 1, max: 8, trimAfterMs: 60_000 }, async (pool) => {
    const first = await Promise.all(Array.from({ length: 4 }, () => pool.acquire()));
    for (const connection of first) pool.release(connection);
    for (let round = 0; round < 5; round++) {
      const taken = await Promise.all(Array.from({ length: 4 }, () => pool.acquire()));
      t.deepEqual(new Set(taken), new Set(first), `round ${round}: the same four connections, no new one opened`);
      for (const connection of taken) pool.release(connection);
    }
    t.is(pool.idleCount, 4);
  });
});

test('close() closes every idle connection, the burst ones included; acquire() then fails', async (t) => {
  await withPool({ kept: 1, max: 4, trimAfterMs: 60_000 }, async (pool) => {
    const burst = await Promise.all([pool.acquire(), pool.acquire(), pool.acquire()]);
    for (const connection of burst) pool.release(connection);
    await pool.close(1000);
    t.is(pool.idleCount, 0);
    for (const connection of burst) t.false(await answers(connection));
    await t.throwsAsync(() => pool.acquire(), { message: /closed/ });
  });
});
