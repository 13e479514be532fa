import test from 'ava';
import { status } from '@grpc/grpc-js';
import { Bool, DateDay, Field, Float64, Int64, makeData, RecordBatch, Schema, Struct, TimestampMillisecond, Utf8, vectorFromArray } from 'apache-arrow';
import { CommandPreparedStatementQuerySchema } from '../../core/flight/generated/arrow/flight/protocol/sql/flight_sql_pb.js';
import { QUICKSTART_MANIFEST } from '../helpers/runtime.js';
import { grpcError, withFlight } from './flight-helpers.js';

const setup = { manifest: QUICKSTART_MANIFEST, withQuickstartData: true };

test('a prepared statement reports its schemas, binds parameters with DoPut and runs with GetFlightInfo/DoGet', async (t) => {
  await withFlight(t, setup, async ({ client }) => {
    const prepared = await client.prepare('SELECT $1::INTEGER + 1 AS next, upper($2) AS shout');
    t.deepEqual(prepared.datasetSchema.fields.map((field) => `${field.name}:${field.type}`), ['next:Int32', 'shout:Utf8']);
    t.is(prepared.parameterSchema.fields.length, 2);
    await prepared.bind(['41', 'hi']);
    const first = await prepared.query();
    t.deepEqual(first.table.toArray().map((row) => row.toJSON()), [{ next: 42, shout: 'HI' }]);
    // Rebinding replaces the values; the first row of the batch is what counts.
    const schema = new Schema([new Field('a', new Int64()), new Field('b', new Utf8())]);
    const rows = new RecordBatch(schema, makeData({
      type: new Struct(schema.fields), length: 2, nullCount: 0,
      children: [vectorFromArray([9n, 100n], new Int64()).data[0]!, vectorFromArray(['x', 'y'], new Utf8()).data[0]!],
    }));
    await prepared.bind(rows);
    t.deepEqual((await prepared.query()).table.toArray().map((row) => row.toJSON()), [{ next: 10, shout: 'X' }]);
    await prepared.close();
    t.is((await grpcError(prepared.query())).code, status.NOT_FOUND, 'a closed handle is gone');
  });
});

test('typed parameter batches bind dates, timestamps, doubles, booleans and nulls', async (t) => {
  await withFlight(t, setup, async ({ client }) => {
    const prepared = await client.prepare('SELECT $1::DATE AS day, $2::TIMESTAMP AS at, $3::DOUBLE * 2 AS twice, NOT $4::BOOLEAN AS negated, $5::VARCHAR IS NULL AS missing');
    const schema = new Schema([
      new Field('day', new DateDay()), new Field('at', new TimestampMillisecond()), new Field('x', new Float64()),
      new Field('flag', new Bool()), new Field('nothing', new Utf8(), true),
    ]);
    const values: unknown[] = [Date.UTC(2024, 1, 29), Date.UTC(2024, 0, 2, 3, 4, 5, 123), 1.25, true, null];
    const batch = new RecordBatch(schema, makeData({
      type: new Struct(schema.fields), length: 1, nullCount: 0,
      children: schema.fields.map((field, index) => vectorFromArray([values[index]], field.type).data[0]!),
    }));
    await prepared.bind(batch);
    const row = (await prepared.query()).table.get(0)!.toJSON();
    t.is(new Date(row['day'] as number).toISOString().slice(0, 10), '2024-02-29');
    t.is(new Date(Number(row['at'])).toISOString(), '2024-01-02T03:04:05.123Z');
    t.is(row['twice'], 2.5);
    t.is(row['negated'], false);
    t.is(row['missing'], true);
  });
});

test('prepared statements without parameters, over datasets, and their errors', async (t) => {
  await withFlight(t, setup, async ({ client }) => {
    const prepared = await client.prepare('SELECT count(*) AS n FROM orders');
    t.is(prepared.parameterSchema.fields.length, 0);
    const { table } = await prepared.query();
    t.true(Number(table.get(0)!.toJSON()['n']) > 0);
    await prepared.close();

    const bad = await grpcError(client.prepare('SELEC 1'));
    t.is(bad.code, status.INVALID_ARGUMENT);
    const unbound = await client.prepare('SELECT $1::INTEGER AS x');
    const missing = await grpcError(unbound.query());
    t.is(missing.code, status.INVALID_ARGUMENT, 'running before binding says to bind first');
    t.regex(missing.details, /bind them with DoPut/);
    const wrongCount = await grpcError(unbound.bind(unbound.parameterBatch(['1']).slice(0, 1).selectAt([])));
    t.is(wrongCount.code, status.INVALID_ARGUMENT);
  });
});

test('handles belong to the caller that created them', async (t) => {
  await withFlight(t, setup, async ({ client, runtime, connect }) => {
    let caller = 'alice';
    runtime.hooks.auth.tapPromise({ name: 'test-identity', stage: -100 }, async (request) => {
      request.principal = { id: caller, method: 'test', canWrite: true };
      return undefined;
    });
    const prepared = await client.prepare('SELECT 1 AS one');
    caller = 'bob';
    const other = connect();
    const foreign = await grpcError(other.commandInfo(CommandPreparedStatementQuerySchema, { preparedStatementHandle: prepared.handle }));
    t.is(foreign.code, status.NOT_FOUND);
    caller = 'alice';
    t.is((await prepared.query()).table.numRows, 1);
  });
});

test('ListActions names the supported actions; unknown and transaction actions are UNIMPLEMENTED', async (t) => {
  await withFlight(t, setup, async ({ client }) => {
    const actions = (await client.flight.listActions()).map((action) => action.type);
    t.deepEqual(actions, ['CreatePreparedStatement', 'ClosePreparedStatement', 'CancelFlightInfo', 'CancelQuery']);
    t.is((await grpcError(client.flight.doAction('BeginTransaction'))).code, status.UNIMPLEMENTED);
    t.is((await grpcError(client.flight.doAction('Launch'))).code, status.UNIMPLEMENTED);
  });
});
