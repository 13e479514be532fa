import test from 'ava';
import { status } from '@grpc/grpc-js';
import { Field, Int64, makeData, RecordBatch, Schema, Struct, Utf8, vectorFromArray } from 'apache-arrow';
import { FlightDescriptor_DescriptorType } from '../../core/flight/generated/arrow/flight/protocol/flight_pb.js';
import { SqlInfo, CommandStatementIngest_TableDefinitionOptions_TableExistsOption as TableExists } from '../../core/flight/generated/arrow/flight/protocol/sql/flight_sql_pb.js';
import { grpcError, withFlight } from './flight-helpers.js';

const manifest = (access: 'read' | 'read_write', extra = '') => `
version: v2
kind: Spicepod
name: writes
datasets:
  - from: file:data/events.csv
    name: events
    access: ${access}
    acceleration:
      enabled: true
  - from: file:data/events.csv
    name: live_events
    access: read_write
${extra}`;
const files = { 'data/events.csv': 'id,label\n1,one\n2,two\n' };

function eventsBatch(ids: bigint[]): RecordBatch {
  const schema = new Schema([new Field('id', new Int64(), true), new Field('label', new Utf8(), true)]);
  return new RecordBatch(schema, makeData({
    type: new Struct(schema.fields), length: ids.length, nullCount: 0,
    children: [vectorFromArray(ids, new Int64()).data[0]!, vectorFromArray(ids.map((id) => `event ${id}`), new Utf8()).data[0]!],
  }));
}

test('SQL updates into a read-only dataset are PERMISSION_DENIED', async (t) => {
  await withFlight(t, { manifest: manifest('read'), files }, async ({ client }) => {
    const refused = await grpcError(client.executeUpdate("INSERT INTO events VALUES (3, 'three')"));
    t.is(refused.code, status.PERMISSION_DENIED);
    t.deepEqual(refused.metadata.get('x-quarry-error-code'), ['WRITE_NOT_ALLOWED']);
    const prepared = await client.prepare('DELETE FROM events WHERE id = $1');
    t.is(prepared.datasetSchema.fields.length, 0, 'an update has no result set');
    t.is((await grpcError(prepared.executeUpdate())).code, status.PERMISSION_DENIED);
  });
});

test('ingest options Quarry cannot honour get clear errors before any data is read', async (t) => {
  await withFlight(t, { manifest: manifest('read'), files }, async ({ client }) => {
    const upload = () => ({ schema: eventsBatch([1n]).schema, batches: [eventsBatch([3n])] });
    const cases: Array<[string, Promise<unknown>, number, RegExp]> = [
      ['replace', client.ingest('events', upload(), { ifExists: TableExists.REPLACE }), status.INVALID_ARGUMENT, /APPEND/],
      ['fail if exists', client.ingest('events', upload(), { ifExists: TableExists.FAIL }), status.INVALID_ARGUMENT, /append/],
      ['unknown table', client.ingest('nope', upload()), status.NOT_FOUND, /no dataset "nope"/],
      ['other catalog', client.ingest('events', upload(), { catalog: 'elsewhere' }), status.NOT_FOUND, /catalog/],
      ['read-only dataset', client.ingest('events', upload()), status.PERMISSION_DENIED, /access: read_write/],
      ['not accelerated', client.ingest('live_events', upload()), status.FAILED_PRECONDITION, /not accelerated/],
      ['PATH to a read-only dataset', client.flight.doPut({ type: FlightDescriptor_DescriptorType.PATH, path: ['events'] }, upload()), status.PERMISSION_DENIED, /read-only/],
    ];
    for (const [name, call, code, message] of cases) {
      const failure = await grpcError(call);
      t.is(failure.code, code, `${name}: ${failure.details}`);
      t.regex(failure.details, message, name);
    }
  });
});

test('DoPut is rate-limited per caller with a retry hint, unless switched off', async (t) => {
  await withFlight(t, { manifest: manifest('read'), files }, async ({ client }) => {
    // Sent at once, so the bucket (20 calls, 10 more a second) cannot refill between them on a slow machine.
    const failures = await Promise.all(Array.from({ length: 40 }, () => grpcError(client.executeUpdate("INSERT INTO events VALUES (9, 'nine')"))));
    const outcomes = failures.map((failure) => failure.code);
    const limited = failures.find((failure) => failure.code === status.RESOURCE_EXHAUSTED);
    const hint = limited && { details: limited.details, retryAfter: limited.metadata.get('retry-after')[0] };
    t.true(outcomes.every((code) => code === status.PERMISSION_DENIED || code === status.RESOURCE_EXHAUSTED));
    t.true(outcomes.filter((code) => code === status.PERMISSION_DENIED).length >= 20, 'the burst of 20 passes (and is refused by the write policy)');
    t.true(outcomes.includes(status.RESOURCE_EXHAUSTED));
    t.regex(hint!.details, /retry in \d+ s/);
    t.true(Number(hint!.retryAfter) >= 1);
  });
  const unlimited = manifest('read', 'runtime:\n  flight:\n    do_put_rate_limit_enabled: false\n');
  await withFlight(t, { manifest: unlimited, files }, async ({ client }) => {
    for (let call = 0; call < 30; call++) {
      t.is((await grpcError(client.executeUpdate("INSERT INTO events VALUES (9, 'nine')"))).code, status.PERMISSION_DENIED);
    }
  });
});

test('CommandStatementIngest and PATH DoPut append into a read_write accelerated dataset', async (t) => {
  await withFlight(t, { manifest: manifest('read_write'), files }, async ({ client, runtime }) => {
    const invalidated: string[][] = [];
    runtime.hooks.cache.invalidate.tap('test-invalidations', (invalidation) => void invalidated.push([...invalidation.datasets]));
    const batch = eventsBatch([10n, 11n, 12n]);
    t.is(await client.ingest('events', { schema: batch.schema, batches: [batch] }), 3n);
    t.deepEqual(invalidated, [['events']], 'the write invalidated cached results of the dataset');
    const results = await client.flight.doPut({ type: FlightDescriptor_DescriptorType.PATH, path: ['events'] }, { schema: batch.schema, batches: [eventsBatch([20n])] });
    t.is(results.length, 1);
    const { table } = await client.query('SELECT count(*) AS n FROM events');
    t.is(Number(table.get(0)!.toJSON()['n']), 6);
    const readOnly = (await client.getSqlInfo([SqlInfo.FLIGHT_SQL_SERVER_READ_ONLY])).get(0)!.toJSON()['value'];
    t.is(readOnly, false, 'a read_write dataset makes the server writable');
  });
});

test('CommandStatementUpdate reports the affected row count in DoPutUpdateResult', async (t) => {
  await withFlight(t, { manifest: manifest('read_write'), files }, async ({ client }) => {
    t.is(await client.executeUpdate("INSERT INTO events VALUES (3, 'three'), (4, 'four')"), 2n);
    const prepared = await client.prepare("INSERT INTO events VALUES ($1, 'prepared')");
    const schema = new Schema([new Field('id', new Int64(), true)]);
    const rows = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: 2, nullCount: 0, children: [vectorFromArray([30n, 31n], new Int64()).data[0]!] }));
    t.is(await prepared.executeUpdate(rows), 2n, 'one execution per parameter row, counts summed');
    const { table } = await client.query("SELECT count(*) AS n FROM events WHERE label = 'prepared'");
    t.is(Number(table.get(0)!.toJSON()['n']), 2);
    t.is((await grpcError(client.executeUpdate('DELETE FROM events'))).code, status.PERMISSION_DENIED, 'only INSERT writes');
  });
});
