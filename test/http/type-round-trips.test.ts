import test from 'ava';
import { tableFromIPC } from 'apache-arrow';
import { withRuntime } from '../helpers/runtime.js';

// One row per case, every column a different engine type; the second row is all NULLs.
const EVERY_TYPE = `
SELECT * FROM (VALUES
  (true, (-42)::TINYINT, 1234::SMALLINT, (-2147483648)::INTEGER, 9007199254740993::BIGINT, 255::UTINYINT, 18446744073709551615::UBIGINT,
   170141183460469231731687303715884105727::HUGEINT, 1.5::FLOAT, 0.1::DOUBLE, (-12.50)::DECIMAL(4,2), 123456789012345678.123::DECIMAL(38,3),
   'say "hi"' || chr(10) || 'ünïcödé ✓', '\\x01\\x02\\x03'::BLOB, DATE '1969-07-20', TIME '23:59:59.999999',
   TIMESTAMP '2024-01-31 12:34:56.123456', TIMESTAMPTZ '2024-01-31 12:34:56+00', TIMESTAMP_MS '1960-01-01 00:00:00.5',
   INTERVAL '1 year 2 days 3.5 seconds', '8e884ace-bee4-11e4-8dfc-aa07a5b093db'::UUID,
   'sad'::ENUM('sad', 'ok', 'happy'), [1, NULL, 3], {'x': 1, 'y': 'z'}, MAP {'k': 1.5}, '{"a": [1, 2]}'::JSON),
  (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
) AS t(bool, tiny, small, int, big, utiny, ubig, huge, float, double, dec, wide_dec, text, blob, date, time, ts, tstz, ts_ms, iv, uuid, mood, list, struct, map, json)`;

const setup = { manifest: 'datasets: []\n' };

test('every engine type through JSON', async (t) => {
  await withRuntime(t, setup, async ({ sql }) => {
    const response = await sql(EVERY_TYPE, { accept: 'application/json' });
    t.is(response.status, 200);
    t.is(response.headers.get('content-type'), 'application/json; charset=utf-8');
    const text = await response.text();
    // Exact digits must survive, so check the raw text for the 64/128-bit and decimal values.
    t.true(text.includes('"big":9007199254740993'));
    t.true(text.includes('"ubig":18446744073709551615'));
    t.true(text.includes('"huge":170141183460469231731687303715884105727'));
    t.true(text.includes('"wide_dec":123456789012345678.123'));
    const [row, empty] = JSON.parse(text) as [Record<string, unknown>, Record<string, unknown>];
    t.like(row, {
      bool: true,
      tiny: -42,
      small: 1234,
      int: -2147483648,
      utiny: 255,
      float: 1.5,
      double: 0.1,
      dec: -12.5,
      text: 'say "hi"\nünïcödé ✓',
      blob: 'AQID',
      date: '1969-07-20',
      time: '23:59:59.999999',
      ts: '2024-01-31T12:34:56.123456',
      tstz: '2024-01-31T12:34:56Z',
      ts_ms: '1960-01-01T00:00:00.5',
      iv: { months: 12, days: 2, nanoseconds: 3_500_000_000 },
      uuid: '8e884ace-bee4-11e4-8dfc-aa07a5b093db',
      mood: 'sad',
      list: [1, null, 3],
      struct: { x: 1, y: 'z' },
      map: { k: 1.5 },
      json: { a: [1, 2] },
    });
    t.true(Object.values(empty).every((value) => value === null), 'NULL of every type is null');
    t.is(Object.keys(empty).length, 26);
  });
});

test('the default answer is the JSON rows with text/plain, as the spec says', async (t) => {
  await withRuntime(t, setup, async ({ sql }) => {
    const response = await sql('SELECT 1 AS one');
    t.is(response.headers.get('content-type'), 'text/plain; charset=utf-8');
    t.is(response.headers.get('x-cache'), 'MISS', 'the results cache saw this query for the first time');
    t.is(await response.text(), '[{"one":1}]');
    const empty = await sql('SELECT 1 AS one WHERE false', { accept: 'application/json' });
    t.is(await empty.text(), '[]');
  });
});

test('every engine type through CSV', async (t) => {
  await withRuntime(t, setup, async ({ sql }) => {
    const response = await sql(EVERY_TYPE, { accept: 'text/csv' });
    t.is(response.status, 200);
    t.regex(response.headers.get('content-type') ?? '', /^text\/csv; charset=utf-8/);
    const text = await response.text();
    const [header, ...rest] = text.split('\r\n');
    t.is(header, 'bool,tiny,small,int,big,utiny,ubig,huge,float,double,dec,wide_dec,text,blob,date,time,ts,tstz,ts_ms,iv,uuid,mood,list,struct,map,json');
    const body = rest.join('\r\n');
    t.true(body.startsWith('true,-42,1234,-2147483648,9007199254740993,255,18446744073709551615,170141183460469231731687303715884105727,1.5,0.1,-12.50,123456789012345678.123,"say ""hi""\nünïcödé ✓",AQID,1969-07-20,23:59:59.999999,2024-01-31T12:34:56.123456,2024-01-31T12:34:56Z,'), body.slice(0, 400));
    t.true(body.includes(',8e884ace-bee4-11e4-8dfc-aa07a5b093db,sad,'));
    t.true(body.endsWith(',,,,,,,,,,,,,,,,,,,,,,,,,\r\n'), 'the NULL row is empty fields');
  });
});

test('every engine type through the Arrow IPC stream, read back with apache-arrow', async (t) => {
  await withRuntime(t, setup, async ({ sql }) => {
    const response = await sql(EVERY_TYPE, { accept: 'application/vnd.apache.arrow.stream' });
    t.is(response.status, 200);
    t.is(response.headers.get('content-type'), 'application/vnd.apache.arrow.stream');
    const table = tableFromIPC(new Uint8Array(await response.arrayBuffer()));
    t.is(table.numRows, 2);
    const value = (name: string, row = 0) => table.getChild(name)!.get(row);
    t.is(value('bool'), true);
    t.is(value('big'), 9007199254740993n);
    t.is(value('ubig'), 18446744073709551615n);
    t.is(value('double'), 0.1);
    t.is(value('text'), 'say "hi"\nünïcödé ✓');
    t.deepEqual([...(value('blob') as Uint8Array)], [1, 2, 3]);
    t.is(value('uuid'), '8e884ace-bee4-11e4-8dfc-aa07a5b093db');
    t.is(value('mood'), 'sad', 'ENUM dictionaries read back');
    t.deepEqual([...(value('list') as Iterable<unknown>)], [1, null, 3]);
    t.is(String(table.schema.fields.find((f) => f.name === 'dec')!.type), 'Decimal[4e+2]');
    t.is(table.schema.fields.find((f) => f.name === 'ts')!.metadata.get('duckdb:type'), 'TIMESTAMP');
    for (const field of table.schema.fields) t.is(table.getChild(field.name)!.get(1), null, `${field.name} NULL`);
  });
});

test('a large result streams across many batches in every format', async (t) => {
  await withRuntime(t, setup, async ({ sql }) => {
    const query = "SELECT i, 'row ' || i AS label FROM range(300000) t(i)";
    const arrow = tableFromIPC(new Uint8Array(await (await sql(query, { accept: 'application/vnd.apache.arrow.stream' })).arrayBuffer()));
    t.is(arrow.numRows, 300_000);
    t.true(arrow.batches.length > 1, 'several record batches');
    t.is(arrow.getChild('label')!.get(299_999), 'row 299999');
    const json = (await (await sql(query, { accept: 'application/json' })).json()) as Array<{ i: number }>;
    t.is(json.length, 300_000);
    t.is(json[123_456]!.i, 123_456);
    const csv = await (await sql(query, { accept: 'text/csv' })).text();
    t.is(csv.split('\r\n').length, 300_002);
  });
});
