import test from 'ava';
import {
  Binary,
  Bool,
  DateDay,
  Decimal,
  Dictionary,
  Field,
  FixedSizeList,
  Float32,
  Float64,
  Int32,
  Int64,
  IntervalMonthDayNano,
  List,
  Map_,
  Struct,
  Table,
  TimeMicrosecond,
  Timestamp,
  TimeUnit,
  Utf8,
  makeBuilder,
  makeData,
  makeVector,
  tableFromIPC,
  tableToIPC,
  vectorFromArray,
  type Vector,
} from 'apache-arrow';
import { formatValue } from '../../cli/quarry/render/value-format.js';
import { formatInterval, formatTimestamp } from '../../cli/quarry/render/temporal-format.js';

/** Every value of a column as the table shows it, after an IPC round trip (as the client receives it). */
function shown(vector: Vector): string[] {
  const table = tableFromIPC(tableToIPC(new Table({ value: vector }), 'stream'));
  const texts: string[] = [];
  for (const batch of table.batches) {
    const data = batch.data.children[0]!;
    for (let row = 0; row < batch.numRows; row += 1) texts.push(formatValue(data, row));
  }
  return texts;
}

test('integers, 64-bit exact, and NULL', (t) => {
  t.deepEqual(shown(vectorFromArray([1, -2, null], new Int32())), ['1', '-2', 'NULL']);
  t.deepEqual(shown(vectorFromArray([9007199254740993n, -9223372036854775808n], new Int64())), ['9007199254740993', '-9223372036854775808']);
});

test('floats: shortest text, float32 without double noise, DuckDB spellings of non-finite values', (t) => {
  t.deepEqual(shown(vectorFromArray([0.1, 1 / 3, 1e21], new Float64())), ['0.1', '0.3333333333333333', '1e+21']);
  t.deepEqual(shown(vectorFromArray([0.1, Number.NaN, Number.NEGATIVE_INFINITY], new Float32())), ['0.1', 'nan', '-inf']);
});

test('decimals keep every digit of their scale, negative values included', (t) => {
  const words = new Uint32Array([12345, 0, 0, 0, 4294967196, 4294967295, 4294967295, 4294967295, 5, 0, 0, 0]);
  t.deepEqual(shown(makeVector(makeData({ type: new Decimal(2, 12, 128), length: 3, nullCount: 0, data: words }))), ['123.45', '-1.00', '0.05']);
  // 2^64 needs the upper words: exactness beyond 64 bits.
  const big = new Uint32Array([0, 0, 1, 0]);
  t.deepEqual(shown(makeVector(makeData({ type: new Decimal(0, 38, 128), length: 1, nullCount: 0, data: big }))), ['18446744073709551616']);
});

test('strings stay raw at the top level; booleans and blobs', (t) => {
  t.deepEqual(shown(vectorFromArray(["it's", '', null], new Utf8())), ["it's", '', 'NULL']);
  t.deepEqual(shown(vectorFromArray([true, false, null], new Bool())), ['true', 'false', 'NULL']);
  t.deepEqual(shown(vectorFromArray([new Uint8Array([104, 105, 0, 255])], new Binary())), ['hi\\x00\\xFF']);
});

test('dates, times and timestamps keep their full precision', (t) => {
  t.deepEqual(shown(vectorFromArray([new Date('2024-02-29'), null], new DateDay())), ['2024-02-29', 'NULL']);
  const micros = new BigInt64Array([1704164645123456n, -1n, 0n]);
  t.deepEqual(shown(makeVector(makeData({ type: new Timestamp(TimeUnit.MICROSECOND), length: 3, nullCount: 0, data: micros }))), [
    '2024-01-02 03:04:05.123456',
    '1969-12-31 23:59:59.999999',
    '1970-01-01 00:00:00',
  ]);
  const zoned = new BigInt64Array([1704164645000000n]);
  t.deepEqual(shown(makeVector(makeData({ type: new Timestamp(TimeUnit.MICROSECOND, 'UTC'), length: 1, nullCount: 0, data: zoned }))), ['2024-01-02 03:04:05+00']);
  t.deepEqual(shown(makeVector(makeData({ type: new TimeMicrosecond(), length: 1, nullCount: 0, data: new BigInt64Array([3723000001n]) }))), ['01:02:03.000001']);
  t.is(formatTimestamp(1_000_000_001n, TimeUnit.NANOSECOND, false), '1970-01-01 00:00:01.000000001');
});

test('intervals read like DuckDB prints them', (t) => {
  const words = new Int32Array([14, 3, 1000, 0, 0, 0, 0, 0]);
  t.deepEqual(shown(makeVector(makeData({ type: new IntervalMonthDayNano(), length: 2, nullCount: 0, data: words }))), [
    '1 year 2 months 3 days 00:00:00.000001',
    '00:00:00',
  ]);
  t.is(formatInterval(1, 1, -3_600_000_000_000n), '1 month 1 day -01:00:00');
  t.is(formatInterval(0, 0, 36n * 3_600_000_000_000n), '36:00:00');
});

test('nested values: lists, fixed-size lists, structs and maps, with strings quoted inside', (t) => {
  t.deepEqual(shown(vectorFromArray([[1, null, 3], [], null], new List(new Field('item', new Int32(), true)))), ['[1, NULL, 3]', '[]', 'NULL']);
  const struct = new Struct([new Field('a', new Int32(), true), new Field('b', new Utf8(), true)]);
  t.deepEqual(shown(vectorFromArray([{ a: 1, b: "it's" }, null], struct)), ["{'a': 1, 'b': 'it''s'}", 'NULL']);
  const fixed = makeBuilder({ type: new FixedSizeList(2, new Field('item', new Int32())) });
  fixed.append([1, 2]);
  fixed.append([3, 4]);
  t.deepEqual(shown(makeVector(fixed.finish().flush())), ['[1, 2]', '[3, 4]']);
  const map = makeBuilder({
    type: new Map_<Utf8, Int32>(
      new Field('entries', new Struct<{ key: Utf8; value: Int32 }>([new Field('key', new Utf8(), false), new Field('value', new Int32(), true)]), false),
    ),
    nullValues: [null, undefined],
  });
  map.append(new Map([['a', 1], ['b', null]]) as never);
  t.deepEqual(shown(makeVector(map.finish().flush())), ["{'a'=1, 'b'=NULL}"]);
});

test('dictionary (enum) columns show their values', (t) => {
  t.deepEqual(shown(vectorFromArray(['x', 'y', null, 'x'], new Dictionary(new Utf8(), new Int32()))), ['x', 'y', 'NULL', 'x']);
});

test('values of a sliced chunk are read at the right offset', (t) => {
  const table = tableFromIPC(tableToIPC(new Table({ value: vectorFromArray([1n, 2n, 3n], new Int64()) }), 'stream')).slice(1);
  const data = table.batches[0]!.data.children[0]!;
  t.deepEqual([formatValue(data, 0), formatValue(data, 1)], ['2', '3']);
});
