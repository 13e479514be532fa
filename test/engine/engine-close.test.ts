import test from 'ava';
import { rmSync } from 'node:fs';
import { startRuntime } from '../helpers/runtime.js';

// Closing a DuckDB connection while a call still runs on it destroys the connection's client
// context from inside that call, which then waits forever on the context's own lock: the call
// never settles and the thread-pool thread never returns (so the process cannot exit either).
// These tests fail by the deadline when a connection is closed under a running call.

const DEADLINE_MS = 20_000;

/** Settles with the promise's outcome, or 'hung' once DEADLINE_MS passed. */
async function settlesInTime<T>(promise: Promise<T>): Promise<{ value: T } | { error: unknown } | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'hung'>((resolve) => (timer = setTimeout(resolve, DEADLINE_MS, 'hung')));
  try {
    return await Promise.race([promise.then((value) => ({ value }), (error: unknown) => ({ error })), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

// Hashing 10 KB per row: every chunk of rows keeps DuckDB busy for a while.
const SLOW_ROWS = "SELECT md5(repeat('x', 10000) || range::VARCHAR) AS digest FROM range(100000000)";

test('stopping the runtime while an engine call runs interrupts it, the call settles, and the runtime stops', async (t) => {
  const context = await startRuntime({ manifest: 'datasets: []\n' });
  const running = context.runtime.engine.runInternal('SELECT sum(range) FROM range(100000000000)');
  await new Promise((resolve) => setTimeout(resolve, 200));
  const stopped = await settlesInTime(context.runtime.stop());
  t.not(stopped, 'hung', 'the runtime stopped');
  const outcome = await settlesInTime(running);
  t.not(outcome, 'hung', 'the running call settled');
  rmSync(context.directory, { recursive: true, force: true });
  t.like(outcome, { error: { code: 'QUERY_CANCELLED' } }, 'the call was interrupted');
});

test('abandoning an aborted stream while the engine fetches ahead returns once the fetch settled, and the engine still closes', async (t) => {
  const context = await startRuntime({ manifest: 'datasets: []\n' });
  try {
    const prepared = await context.runtime.engine.prepare(SLOW_ROWS);
    const controller = new AbortController();
    const stream = await prepared.execute([], controller.signal);
    const iterator = stream.batches[Symbol.asyncIterator]();
    t.false((await iterator.next()).done);
    // The pump has the next chunk's fetch in flight now; the aborted stream's connection is
    // discarded (closed), which must wait for that fetch.
    controller.abort();
    t.not(await settlesInTime(iterator.return!()), 'hung', 'return() settled');
    const after = await settlesInTime(context.runtime.engine.runInternal('SELECT 42 AS answer'));
    t.deepEqual(after, { value: [{ answer: 42 }] }, 'the engine answers the next query');
  } finally {
    t.not(await settlesInTime(context.runtime.stop()), 'hung', 'the runtime stopped');
    rmSync(context.directory, { recursive: true, force: true });
  }
});
