import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { RecordBatch, RecordBatchReader, RecordBatchStreamWriter, Table, tableFromIPC } from 'apache-arrow';
import test from 'ava';
import { encodeArrowStream } from '../../../core/http/encoders/index.js';
import { arrowRows, collect } from '../../engine/arrow/helpers/compare.js';
import { createEveryTypeEnums, everyTypeQuery } from '../../engine/arrow/helpers/every-type-query.js';
import { concat, inputFor, inputOf } from './helpers/encode.js';

let instance: DuckDBInstance;
const connect = (): Promise<DuckDBConnection> => instance.connect();

test.before(async () => {
  instance = await DuckDBInstance.create(':memory:');
  await createEveryTypeEnums(await connect());
});

test('every type round-trips through the IPC stream, batch by batch', async (t) => {
  const { schema, batches } = await collect(await connect(), everyTypeQuery(3000), { targetRowsPerBatch: 1000 });
  const { body } = await concat(encodeArrowStream(inputOf(schema, batches)));
  const table = tableFromIPC(body);
  t.is(table.numRows, 3000);
  t.deepEqual(table.batches.map((batch) => batch.numRows), [1000, 1000, 1000]);
  t.deepEqual(table.schema.fields.map((field) => `${field.name}:${field.type}`), schema.fields.map((field) => `${field.name}:${field.type}`));
  t.deepEqual(arrowRows(table.batches), arrowRows(batches));
  t.is(table.schema.fields.find((field) => field.name === 'c_json')!.metadata.get('ARROW:extension:name'), 'arrow.json');
});

test('the bytes equal apache-arrow writing the same batches in one go', async (t) => {
  const { schema, batches } = await collect(await connect(), everyTypeQuery(500), { targetRowsPerBatch: 200 });
  const { body } = await concat(encodeArrowStream(inputOf(schema, batches)));
  const reference = RecordBatchStreamWriter.writeAll(new Table(schema, batches)).toUint8Array(true);
  t.true(Buffer.from(reference).equals(body));
});

test('an empty result is a schema message and the end-of-stream marker', async (t) => {
  const connection = await connect();
  const { body } = await concat(encodeArrowStream(await inputFor(connection, "SELECT 1::INTEGER AS a, 'x' AS b WHERE false")));
  const table = tableFromIPC(body);
  t.is(table.numRows, 0);
  t.deepEqual(table.schema.fields.map((field) => `${field.name}:${field.type}`), ['a:Int32', 'b:Utf8']);
  t.true(body.subarray(-8).equals(Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0])));
});

test('streams: the schema and first batch are out before later batches are read', async (t) => {
  const connection = await connect();
  const input = await inputFor(connection, 'SELECT i, i * 2 AS j FROM range(200000) t(i)', { targetRowsPerBatch: 20000 });
  let read = 0;
  const counted = {
    schema: input.schema,
    batches: (async function* () {
      for await (const batch of input.batches) {
        read++;
        yield batch;
      }
    })(),
  };
  const readWhenYielded: number[] = [];
  const parts: Buffer[] = [];
  for await (const chunk of encodeArrowStream(counted)) {
    readWhenYielded.push(read);
    parts.push(chunk);
  }
  t.is(readWhenYielded[0], 0, 'schema before any batch');
  t.true(readWhenYielded.includes(1));
  t.is(read, 10);
  const reader = RecordBatchReader.from(Buffer.concat(parts));
  let rows = 0;
  for (const batch of reader) rows += (batch as RecordBatch).numRows;
  t.is(rows, 200000);
});

test('enum dictionaries shared by all batches are written once', async (t) => {
  const connection = await connect();
  const { schema, batches } = await collect(connection, "SELECT ('v' || (i % 300))::wide_enum AS e FROM range(10000) t(i)", { targetRowsPerBatch: 1000 });
  const { body } = await concat(encodeArrowStream(inputOf(schema, batches)));
  // Each dictionary message would carry all 300 members (~3 KB); ten of them would show.
  const once = RecordBatchStreamWriter.writeAll(new Table(schema, batches.slice(0, 1))).toUint8Array(true).length;
  t.true(body.length < once + 9 * (1000 * 2 + 400), `${body.length} bytes`);
  const table = tableFromIPC(body);
  t.is(table.getChild('e')!.get(9999), 'v99');
});
