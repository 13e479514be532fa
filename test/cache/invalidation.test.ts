import test from 'ava';
import type { RecordBatch } from 'apache-arrow';
import { STAGE } from '../../core/hooks/stages.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { withRuntime } from '../helpers/runtime.js';
import { ask, cacheSetup, eventually } from './cache-helpers.js';

const EVENTS = 'SELECT id, label FROM events ORDER BY id';

test('a write (INSERT) is never cached and evicts every entry that read its dataset', async (t) => {
  await withRuntime(t, cacheSetup(''), async (context) => {
    t.is((await ask(context, EVENTS)).cache, 'MISS');
    t.is((await ask(context, 'SELECT count(*) AS n FROM orders')).cache, 'MISS');
    const insert = "INSERT INTO events VALUES (3, 'three')";
    t.is((await ask(context, insert)).cache, 'BYPASS');
    const after = await ask(context, EVENTS);
    t.is(after.cache, 'MISS');
    t.is((after.body as unknown[]).length, 3, 'the new row is visible at once');
    t.is((await ask(context, 'SELECT count(*) AS n FROM orders')).cache, 'HIT', 'other datasets keep their entries');
  });
});

test('a refresh of an accelerated dataset evicts what read it', async (t) => {
  await withRuntime(t, cacheSetup(''), async (context) => {
    t.is((await ask(context, 'SELECT count(*) AS n FROM orders')).cache, 'MISS');
    t.is((await ask(context, EVENTS)).cache, 'MISS');
    const refreshed = await fetch(`${context.baseUrl}/v1/datasets/orders/acceleration/refresh`, { method: 'POST' });
    t.is(refreshed.status, 201);
    await eventually(() => context.runtime.engine.dataset('orders')?.state === 'ready');
    t.is((await ask(context, 'SELECT count(*) AS n FROM orders')).cache, 'MISS');
    t.is((await ask(context, EVENTS)).cache, 'HIT');
  });
});

/**
 * Holds the first result of the given SQL before its first batch is read, until released:
 * a query that started before a change and finishes after it.
 */
function gatePlugin(sql: string) {
  let reached!: () => void;
  let release!: () => void;
  const atGate = new Promise<void>((resolve) => (reached = resolve));
  const opened = new Promise<void>((resolve) => (release = resolve));
  let used = false;
  const plugin: QuarryPlugin = {
    name: 'gate',
    apply(runtime) {
      runtime.hooks.cache.store.tap({ name: 'gate', stage: STAGE.CACHE + 1 }, (result, request) => {
        if (used || request.sql !== sql) return result;
        used = true;
        const source = result.batches;
        const gated: AsyncIterable<RecordBatch> = {
          [Symbol.asyncIterator]() {
            const iterator = source[Symbol.asyncIterator]();
            let first = true;
            return {
              async next() {
                if (first) {
                  first = false;
                  reached();
                  await opened;
                }
                return iterator.next();
              },
              return: async () => (await iterator.return?.()) ?? { done: true, value: undefined },
            };
          },
        };
        return { ...result, batches: gated };
      });
    },
  };
  return { plugin, atGate, release };
}

for (const change of ['write', 'refresh'] as const) {
  test(`a query in flight across a ${change} does not store its older result as fresh`, async (t) => {
    const sql = change === 'write' ? EVENTS : 'SELECT count(*) AS n FROM orders';
    const gate = gatePlugin(sql);
    await withRuntime(t, cacheSetup('', { plugins: [gate.plugin] }), async (context) => {
      const slow = ask(context, sql);
      await gate.atGate;
      if (change === 'write') t.is((await ask(context, "INSERT INTO events VALUES (3, 'three')")).status, 200);
      else await context.runtime.engine.refresh('orders');
      gate.release();
      const answered = await slow;
      t.is(answered.cache, 'MISS');
      const next = await ask(context, sql);
      t.is(next.cache, 'MISS', 'the in-flight result was not stored');
      if (change === 'write') t.is((next.body as unknown[]).length, 3);
      t.is((await ask(context, sql)).cache, 'HIT', 'the result computed after the change is');
    });
  });
}
