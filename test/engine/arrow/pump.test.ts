import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import test from 'ava';
import { openBatchStream, streamRecordBatches } from '../../../core/engine/arrow/index.js';

let instance: DuckDBInstance;
const connect = (): Promise<DuckDBConnection> => instance.connect();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test.before(async () => {
  instance = await DuckDBInstance.create(':memory:');
});

test('a fetch failing while the consumer is not reading surfaces from the iteration after the batches before it, never as an unhandled rejection', async (t) => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const connection = await connect();
    // A list column: its chunks come through the bindings' fetchChunk (native-batches.ts takes flat columns only).
    const result = await connection.stream('SELECT [i] AS l FROM range(1000000) t(i)');
    // The third fetch fails, while the engine works ahead of a consumer that is not reading.
    const fetchChunk = result.fetchChunk.bind(result);
    let fetches = 0;
    result.fetchChunk = () => (++fetches === 3 ? Promise.reject(new Error('fetch failed')) : fetchChunk());
    const { batches } = streamRecordBatches(result, { targetRowsPerBatch: 2048 });
    const iterator = batches[Symbol.asyncIterator]();
    t.false((await iterator.next()).done);
    await sleep(300);
    t.false((await iterator.next()).done, 'the batch converted before the failure still arrives');
    await t.throwsAsync(() => iterator.next(), { message: 'fetch failed' });
    t.deepEqual(await iterator.next(), { done: true, value: undefined });
    t.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('batches keep their order and content when the consumer is slower than the engine', async (t) => {
  const connection = await connect();
  const { batches } = await openBatchStream(await connection.stream('SELECT i AS v FROM range(100000) t(i) ORDER BY i'), { targetRowsPerBatch: 5000 });
  let expected = 0;
  let mismatches = 0;
  for await (const batch of batches) {
    const values = batch.data.children[0]!.values as BigInt64Array;
    for (let r = 0; r < batch.numRows; r++, expected++) if (values[r] !== BigInt(expected)) mismatches++;
    await sleep(5);
  }
  t.is(expected, 100000);
  t.is(mismatches, 0);
});

test('returning while the engine works ahead stops the query and frees the connection', async (t) => {
  const connection = await connect();
  const { batches } = streamRecordBatches(await connection.stream('SELECT i FROM range(100000000) t(i)'), { targetRowsPerBatch: 2048 });
  const iterator = batches[Symbol.asyncIterator]();
  await iterator.next();
  await sleep(100);
  t.deepEqual(await iterator.return!(), { done: true, value: undefined });
  t.deepEqual(await iterator.next(), { done: true, value: undefined });
  t.deepEqual(await (await connection.run('SELECT 7 AS x')).getRowsJS(), [[7]]);
});
