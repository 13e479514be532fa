import test from 'ava';
import { createLogger } from '../../core/log.js';
import { loadManifest } from '../../core/manifest/load.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { taskHistory } from '../../plugins/task-history/recorder.js';
import type { TaskRow } from '../../plugins/task-history/table.js';
import { TaskWriter } from '../../plugins/task-history/writer.js';
import { writeManifestDirectory } from '../helpers/runtime.js';
import { withTelemetryRuntime } from './helpers.js';

const quiet = createLogger({ sink: () => undefined });

function row(index: number): TaskRow {
  return {
    traceId: 't',
    spanId: String(index),
    parentSpanId: undefined,
    task: 'sql_query',
    input: `SELECT ${index}`,
    capturedOutput: undefined,
    startTime: new Date(),
    endTime: new Date(),
    executionDurationMs: 1,
    errorMessage: undefined,
    labels: {},
  };
}

test('retention removes rows that started before retention_period, keeps the rest', async (t) => {
  const manifest = 'datasets: []\nruntime:\n  task_history:\n    retention_period: 60s\n    retention_check_interval: 60s\n';
  await withTelemetryRuntime(t, { manifest }, async (context) => {
    await context.sql('SELECT 1');
    const history = taskHistory(context.runtime.hooks)!;
    await history.flush();
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    history.record({ task: 'sql_query', input: 'SELECT 0', startTime: twoMinutesAgo, endTime: twoMinutesAgo });
    await history.flush();
    t.is((await context.runtime.engine.runInternal('SELECT count(*) AS n FROM runtime.task_history'))[0]!['n'], 2n);
    await history.enforceRetention();
    const rows = await context.runtime.engine.runInternal('SELECT input FROM runtime.task_history ORDER BY start_time');
    t.deepEqual(rows, [{ input: 'SELECT 1' }]);
    const shapes = await context.runtime.engine.runInternal('SELECT input FROM runtime.task_history_shapes');
    t.false(shapes.some((shape) => shape['input'] === 'SELECT 0'), 'the shape only the deleted row named was deleted after it');
    await context.sql('SELECT 1');
    await history.flush();
    t.deepEqual(await context.runtime.engine.runInternal('SELECT input FROM runtime.task_history ORDER BY start_time'), [{ input: 'SELECT 1' }, { input: 'SELECT 1' }], 'rows after a retention check still find their shape');
  });
});

test('retention settings below 60s are refused, naming enabled: false as the way to turn it off', async (t) => {
  const directory = writeManifestDirectory({ manifest: 'datasets: []\nruntime:\n  task_history:\n    retention_period: 10s\n' });
  await t.throwsAsync(loadManifest({ path: directory, bundle: defaultPlugins() }), { message: /retention_period.*at least 60s.*enabled: false/s });
});

test('the writer batches rows into few INSERTs', async (t) => {
  const batches: number[] = [];
  const writer = new TaskWriter({ insert: async ({ count }) => void batches.push(count), onDrop: () => t.fail('nothing may drop'), log: quiet, batchRows: 500 });
  for (let i = 0; i < 1_234; i += 1) writer.add(row(i));
  await writer.flush();
  // The 500th row starts an INSERT; the rows that arrive while it runs go in the next one.
  t.deepEqual(batches, [500, 734]);
  writer.add(row(0));
  await new Promise((resolve) => setTimeout(resolve, 250));
  t.deepEqual(batches, [500, 734, 1], 'a lone row is written by the timer');
});

test('rows that arrive while a write runs wait for the interval: a steady trickle is not written back to back', async (t) => {
  const writes: number[] = [];
  const writer = new TaskWriter({
    // Each write takes 10 ms, as a small engine append does.
    insert: async ({ count }) => {
      writes.push(count);
      await new Promise((resolve) => setTimeout(resolve, 10));
    },
    onDrop: () => t.fail('nothing may drop'),
    log: quiet,
    flushIntervalMs: 150,
  });
  // One row every 2 ms for ~400 ms: written back to back, that is a write every ~10 ms (30 or more).
  const started = Date.now();
  let added = 0;
  while (Date.now() - started < 400) {
    writer.add(row(added++));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const duringLoad = writes.length;
  await writer.flush();
  t.true(duringLoad <= 4, `${duringLoad} writes in 400 ms with a 150 ms interval`);
  t.is(writes.reduce((sum, rows) => sum + rows, 0), added, 'every row is written once');
});

test('a whole batch that built up during a write is written at once, not after another interval', async (t) => {
  const writes: number[] = [];
  let release: () => void = () => undefined;
  const writer = new TaskWriter({
    insert: async ({ count }) => {
      writes.push(count);
      if (writes.length === 1) await new Promise<void>((resolve) => (release = resolve));
    },
    onDrop: () => t.fail('nothing may drop'),
    log: quiet,
    batchRows: 100,
    flushIntervalMs: 60_000,
  });
  for (let i = 0; i < 100; i += 1) writer.add(row(i));
  for (let i = 0; i < 150; i += 1) writer.add(row(i));
  t.deepEqual(writes, [100]);
  release();
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.deepEqual(writes, [100, 150], 'the second batch did not wait for the 60 s interval');
  await writer.stop();
});

test('under a flood faster than INSERTs, the buffer stays capped and drops are counted', async (t) => {
  let release: () => void = () => undefined;
  const blocked = new Promise<void>((resolve) => (release = resolve));
  let dropped = 0;
  let written = 0;
  const writer = new TaskWriter({
    insert: async ({ count }) => {
      await blocked;
      written += count;
    },
    onDrop: (count) => (dropped += count),
    log: quiet,
    maxBufferedRows: 1_000,
  });
  let peak = 0;
  for (let i = 0; i < 20_000; i += 1) {
    writer.add(row(i));
    peak = Math.max(peak, writer.buffered);
  }
  t.true(peak <= 1_000, `peak ${peak}`);
  release();
  await writer.stop();
  t.is(written + dropped, 20_000);
  t.true(dropped >= 18_000, `dropped ${dropped}`);
  t.false(writer.add(row(0)), 'a stopped writer takes no rows');
});

test('a flood of real queries is recorded completely and task_history_dropped_rows stays 0', async (t) => {
  await withTelemetryRuntime(t, { manifest: 'datasets: []\n', metrics: true }, async (context) => {
    const queries = Array.from({ length: 200 }, (_, i) => context.sql(`SELECT ${i} AS n`).then((response) => response.text()));
    await Promise.all(queries);
    await taskHistory(context.runtime.hooks)!.flush();
    const [count] = await context.runtime.engine.runInternal("SELECT count(*) AS n FROM runtime.task_history WHERE task = 'sql_query'");
    t.is(count!['n'], 200n);
    t.is(context.runtime.metrics.value('task_history_dropped_rows'), 0);
  });
});
