import test from 'ava';
import { status } from '@grpc/grpc-js';
import { Field, Int64, makeData, RecordBatch, Schema, Struct, Utf8, vectorFromArray } from 'apache-arrow';
import { grpcError, withFlight } from '../flight/flight-helpers.js';
import { ask, cacheSetup, testKeysPlugin } from './cache-helpers.js';

const QUERY = 'SELECT id, label FROM events ORDER BY id';

function eventsBatch(ids: bigint[]): RecordBatch {
  const schema = new Schema([new Field('id', new Int64(), true), new Field('label', new Utf8(), true)]);
  return new RecordBatch(schema, makeData({
    type: new Struct(schema.fields), length: ids.length, nullCount: 0,
    children: [vectorFromArray(ids, new Int64()).data[0]!, vectorFromArray(ids.map((id) => `event ${id}`), new Utf8()).data[0]!],
  }));
}

test('Flight answers carry x-cache and the cache headers as metadata; HTTP and Flight share entries', async (t) => {
  await withFlight(t, cacheSetup(''), async (context) => {
    const { client } = context;
    const first = await client.query(QUERY);
    t.deepEqual(first.headers.get('x-cache'), ['MISS']);
    t.deepEqual(first.headers.get('results-cache-status'), ['MISS'], 'result.headers reach Flight metadata');
    t.deepEqual(first.headers.get('results-cache-scope'), ['shared']);
    const second = await client.query(QUERY);
    t.deepEqual(second.headers.get('x-cache'), ['HIT']);
    t.deepEqual(second.table.toArray().map((row) => row.toJSON()), first.table.toArray().map((row) => row.toJSON()));
    t.is((await ask(context, QUERY)).cache, 'HIT', 'the entry the Flight query stored answers HTTP');
  });
});

test('Flight honours cache-control metadata: no-cache, only-if-cached, and the custom key', async (t) => {
  await withFlight(t, cacheSetup(''), async ({ client }) => {
    const missing = await grpcError(client.query(QUERY, { 'cache-control': 'only-if-cached' }));
    t.is(missing.code, status.FAILED_PRECONDITION);
    t.regex(missing.details, /^Cache-Control: only-if-cached, and no entry is cached for this query/);
    t.deepEqual((await client.query(QUERY, { 'cache-control': 'no-cache' })).headers.get('x-cache'), ['BYPASS']);
    t.deepEqual((await client.query(QUERY, { 'cache-control': 'only-if-cached' })).headers.get('x-cache'), ['HIT']);
    t.deepEqual((await client.query('SELECT 1 AS one', { 'quarry-cache-key': 'k' })).headers.get('x-cache'), ['MISS']);
    t.deepEqual((await client.query('SELECT 2 AS two', { 'quarry-cache-key': 'k' })).headers.get('x-cache'), ['HIT']);
    const invalid = await grpcError(client.query('SELECT 1', { 'quarry-cache-key': 'bad key' }));
    t.is(invalid.code, status.INVALID_ARGUMENT);
  });
});

test('Flight updates are never cached; ingest evicts entries of its dataset', async (t) => {
  await withFlight(t, cacheSetup('', { plugins: [testKeysPlugin()] }), async ({ connect }) => {
    const client = connect({ headers: { 'x-api-key': 'alice' } });
    t.deepEqual((await client.query(QUERY)).headers.get('x-cache'), ['MISS']);
    t.deepEqual((await client.query(QUERY)).headers.get('x-cache'), ['HIT']);
    t.is(await client.ingest('events', { schema: eventsBatch([1n]).schema, batches: [eventsBatch([3n, 4n])] }), 2n);
    const afterIngest = await client.query(QUERY);
    t.deepEqual(afterIngest.headers.get('x-cache'), ['MISS']);
    t.is(afterIngest.table.numRows, 4);
    t.is(await client.executeUpdate("INSERT INTO events VALUES (5, 'five')"), 1n);
    t.deepEqual((await client.query(QUERY)).headers.get('x-cache'), ['MISS'], 'the SQL update evicted too');
    const reader = connect({ headers: { 'x-api-key': 'reader' } });
    t.is((await grpcError(reader.executeUpdate("INSERT INTO events VALUES (6, 'six')"))).code, status.PERMISSION_DENIED);
  });
});
