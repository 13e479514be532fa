import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { Int32, Table, Utf8, vectorFromArray, type RecordBatch } from 'apache-arrow';
import { QueryHistory, historyPath } from '../../cli/quarry/repl/history.js';
import { collectResult } from '../../cli/quarry/render/result-collector.js';
import { renderQueryOutput } from '../../cli/quarry/render/result-output.js';

async function* batchesOf(table: Table): AsyncGenerator<RecordBatch> {
  yield* table.batches;
}

function resultOf(table: Table, cacheStatus?: string) {
  return { schema: table.schema, batches: batchesOf(table), cacheStatus };
}

test('collects at most the display limit but counts every row', async (t) => {
  const table = new Table({ n: vectorFromArray(Int32Array.from({ length: 12 }, (_, i) => i)) });
  const collected = await collectResult(resultOf(table), 5);
  t.is(collected.rows.length, 5);
  t.is(collected.totalRows, 12);
  t.deepEqual(collected.columns, [{ name: 'n', type: 'integer', align: 'right' }]);
  const text = renderQueryOutput(collected, { elapsedSeconds: 0.01234, cacheStatus: 'MISS' });
  t.true(text.endsWith('\n\nTime: 0.0123 seconds. 5/12 rows displayed.\n'));
});

test('footer: row count, singular, cache notes', async (t) => {
  const one = await collectResult(resultOf(new Table({ s: vectorFromArray(['x'], new Utf8()) })));
  t.true(renderQueryOutput(one, { elapsedSeconds: 1, cacheStatus: undefined }).endsWith('Time: 1.0000 seconds. 1 row.\n'));
  t.true(renderQueryOutput(one, { elapsedSeconds: 1, cacheStatus: 'HIT' }).endsWith('1 row. (cached)\n'));
  t.true(renderQueryOutput(one, { elapsedSeconds: 1, cacheStatus: 'Hit from spiceai' }).endsWith('1 row. (cached)\n'));
  t.true(renderQueryOutput(one, { elapsedSeconds: 1, cacheStatus: 'STALE' }).endsWith('1 row. (cached, stale)\n'));
  t.true(renderQueryOutput(one, { elapsedSeconds: 1, cacheStatus: 'BYPASS' }).endsWith('1 row.\n'));
});

test('no rows, or no schema at all, prints No results.', async (t) => {
  const empty = await collectResult(resultOf(new Table({ n: vectorFromArray([] as number[], new Int32()) })));
  t.is(renderQueryOutput(empty, { elapsedSeconds: 0, cacheStatus: undefined }), 'No results.\n\nTime: 0.0000 seconds. 0 rows.\n');
  const none = await collectResult({ schema: undefined, batches: batchesOf(new Table()) });
  t.true(renderQueryOutput(none, { elapsedSeconds: 0, cacheStatus: undefined }).startsWith('No results.'));
});

test('history lives in QUARRY_HOME (else ~/.quarry) and is written owner-only', (t) => {
  const home = mkdtempSync(join(tmpdir(), 'quarry-history-'));
  t.is(historyPath({ QUARRY_HOME: home }), join(home, 'query_history.txt'));
  t.regex(historyPath({}), /\.quarry[/\\]query_history\.txt$/);

  const path = join(home, 'nested', 'query_history.txt');
  const history = new QueryHistory(path, () => t.fail('no warning expected'));
  history.add('select 1;');
  history.add('   ');
  history.add('select 2;');
  t.is(readFileSync(path, 'utf8'), 'select 1;\nselect 2;\n');
  t.is(statSync(path).mode & 0o777, 0o600);
  t.is(statSync(join(home, 'nested')).mode & 0o777, 0o700);
  t.deepEqual(history.load(), ['select 2;', 'select 1;'], 'newest first, as readline wants');
  history.clear();
  t.deepEqual(history.load(), []);
});

test('an existing history file with loose permissions is tightened', (t) => {
  const home = mkdtempSync(join(tmpdir(), 'quarry-history-'));
  const path = join(home, 'query_history.txt');
  writeFileSync(path, 'old\n');
  chmodSync(path, 0o644);
  new QueryHistory(path, () => undefined).add('new');
  t.is(statSync(path).mode & 0o777, 0o600);
});

test('an unwritable history warns once and the REPL carries on', (t) => {
  const home = mkdtempSync(join(tmpdir(), 'quarry-history-'));
  writeFileSync(join(home, 'file'), '');
  const warnings: string[] = [];
  // A path under a regular file can never be created.
  const history = new QueryHistory(join(home, 'file', 'query_history.txt'), (message) => warnings.push(message));
  history.add('a');
  history.add('b');
  t.is(warnings.length, 1);
  t.regex(warnings[0]!, /query history not saved/);
});
