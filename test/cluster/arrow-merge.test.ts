import test from 'ava';
import { Bool, Decimal, Field, Int32, Int64, makeData, RecordBatch, Schema, Struct, Utf8, vectorFromArray, type Data, type DataType } from 'apache-arrow';
import { DuckDBInstance } from '@duckdb/node-api';
import { cellAt, decimalColumn } from '../../plugins/scheduler/routing/arrow-cells.js';
import { mergePartials, type AggregateMergePlan } from '../../plugins/scheduler/routing/arrow-merge.js';

// The JS merge of a cluster's partial aggregates (arrow-merge.ts) on hand-built leg answers:
// DuckDB's text order, NULL groups, sliced batches, and declining where the engine must merge.

function batch(columns: Array<[string, DataType, Data]>): RecordBatch {
  const fields = columns.map(([name, type]) => new Field(name, type, true));
  return new RecordBatch(new Schema(fields), makeData({ type: new Struct(fields), length: columns[0]![2].length, nullCount: 0, children: columns.map(([, , data]) => data) }));
}

const text = (values: Array<string | null>) => vectorFromArray(values, new Utf8()).data[0]!;
const int32 = (values: Array<number | null>) => vectorFromArray(values, new Int32()).data[0]!;
const int64 = (values: Array<bigint | null>) => vectorFromArray(values, new Int64()).data[0]!;
const bool = (values: Array<boolean | null>) => vectorFromArray(values, new Bool()).data[0]!;
const DECIMAL = new Decimal(2, 38, 128);
const decimal = (values: Array<bigint | null>) => decimalColumn(DECIMAL, values, 10n ** 40n)!;

function rows(answer: RecordBatch | undefined): unknown[][] {
  if (!answer) return [];
  return Array.from({ length: answer.numRows }, (_, row) => answer.data.children.map((data) => cellAt(data, row)));
}

const plan = (overrides: Partial<AggregateMergePlan>): AggregateMergePlan => ({ kind: 'aggregate', groups: 1, aggregates: [{ kind: 'count', column: 1 }], outputs: [{ name: 'g', group: 0 }, { name: 'c', aggregate: 0 }], order: [], offset: 0, limit: undefined, ...overrides });

test('text groups merge and sort in DuckDB\'s order (code points, not UTF-16 units)', async (t) => {
  const words = ['b', 'a', '\u{1F600}', '\uE000', '', 'é', 'B', 'ab'];
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const expected = (await connection.runAndReadAll(`SELECT x FROM (VALUES ${words.map((word) => `('${word}')`).join(', ')}) t(x) ORDER BY x`)).getRowsJS().map((row) => row[0]);
  connection.closeSync();
  instance.closeSync();
  const legs = [
    batch([['quarry_g0', new Utf8(), text(words.slice(0, 5))], ['quarry_a0', new Int64(), int64([1n, 2n, 3n, 4n, 5n])]]),
    batch([['quarry_g0', new Utf8(), text(words.slice(3))], ['quarry_a0', new Int64(), int64([10n, 20n, 30n, 40n, 50n])]]),
  ];
  const answer = mergePartials(plan({ order: [{ output: 0, descending: false, nullsFirst: false }] }), legs[0]!.schema, legs);
  t.deepEqual(rows(answer).map((row) => row[0]), expected);
  // The groups both legs held add up; the rest keep their one count.
  t.deepEqual(rows(answer).find((row) => row[0] === '\uE000'), ['\uE000', 14n]);
  t.deepEqual(rows(answer).find((row) => row[0] === ''), ['', 25n]);
  t.deepEqual(answer!.schema.fields.map((field) => `${field.name}: ${String(field.type)}`), ['g: Utf8', 'c: Int64']);
});

test('NULL groups are one group; NULLs sort first or last as asked; OFFSET and LIMIT apply after the sort', (t) => {
  const legs = [
    batch([['quarry_g0', new Int32(), int32([1, null, 3])], ['quarry_a0', DECIMAL, decimal([150n, -20n, null])]]),
    batch([['quarry_g0', new Int32(), int32([null, 3, 2])], ['quarry_a0', DECIMAL, decimal([5n, null, -1n])]]),
  ];
  const sums = plan({ aggregates: [{ kind: 'sum', column: 1 }], outputs: [{ name: 'g', group: 0 }, { name: 's', aggregate: 0 }] });
  t.deepEqual(rows(mergePartials({ ...sums, order: [{ output: 0, descending: true, nullsFirst: true }] }, legs[0]!.schema, legs)), [[null, -15n], [3, null], [2, -1n], [1, 150n]]);
  t.deepEqual(rows(mergePartials({ ...sums, order: [{ output: 1, descending: false, nullsFirst: false }], offset: 1, limit: 2 }, legs[0]!.schema, legs)), [[2, -1n], [1, 150n]]);
});

test('min and max keep the winning leg\'s value; sliced batches are read at their offset', (t) => {
  const whole = batch([
    ['quarry_g0', new Bool(), bool([true, false, true, false, null])],
    ['quarry_a0', new Utf8(), text(['skip', 'zeta', 'alpha', null, 'n'])],
    ['quarry_a1', DECIMAL, decimal([999n, -5n, 7n, 12n, 1n])],
  ]);
  const sliced = whole.slice(1);
  const other = batch([
    ['quarry_g0', new Bool(), bool([false, true])],
    ['quarry_a0', new Utf8(), text(['beta', null])],
    ['quarry_a1', DECIMAL, decimal([-50n, 8n])],
  ]);
  const extremes = plan({ aggregates: [{ kind: 'min', column: 1 }, { kind: 'max', column: 2 }], outputs: [{ name: 'flag', group: 0 }, { name: 'least', aggregate: 0 }, { name: 'most', aggregate: 1 }], order: [{ output: 0, descending: false, nullsFirst: true }] });
  t.deepEqual(rows(mergePartials(extremes, whole.schema, [sliced, other])), [[null, 'n', 1n], [false, 'beta', 12n], [true, 'alpha', 8n]]);
});

test('the engine merges what JS cannot promise: sums beyond 38 digits, an aggregate over no rows', (t) => {
  const big = 10n ** 37n * 6n;
  const legs = [
    batch([['quarry_a0', DECIMAL, decimal([big])]]),
    batch([['quarry_a0', DECIMAL, decimal([big])]]),
  ];
  const total = plan({ groups: 0, aggregates: [{ kind: 'sum', column: 0 }], outputs: [{ name: 's', aggregate: 0 }] });
  t.is(mergePartials(total, legs[0]!.schema, legs), undefined, '1.2e38 overflows DECIMAL(38): the engine reports it');
  t.deepEqual(rows(mergePartials(total, legs[0]!.schema, [legs[0]!])), [[big]]);
  t.is(mergePartials(total, legs[0]!.schema, []), undefined, 'no leg row: the engine knows the one row it answers');
});

test('count(DISTINCT): the values of quarry_d counted once per group over every leg, NULL not counted; the output is a BIGINT', (t) => {
  const legs = [
    batch([['quarry_g0', new Utf8(), text(['a', 'a', 'b'])], ['quarry_d', new Utf8(), text(['x', null, 'x'])], ['quarry_a0', new Int64(), int64([2n, 1n, 5n])]]),
    batch([['quarry_g0', new Utf8(), text(['a', 'a', 'b'])], ['quarry_d', new Utf8(), text(['x', 'y', 'z'])], ['quarry_a0', new Int64(), int64([1n, 1n, 1n])]]),
  ];
  const distinct = plan({
    aggregates: [{ kind: 'count-distinct' }, { kind: 'count', column: 2 }],
    outputs: [{ name: 'g', group: 0 }, { name: 'd', aggregate: 0 }, { name: 'c', aggregate: 1 }],
    order: [{ output: 1, descending: true, nullsFirst: false }],
  });
  const answer = mergePartials(distinct, legs[0]!.schema, legs);
  t.deepEqual(rows(answer), [['a', 2n, 5n], ['b', 2n, 6n]]);
  t.is(answer!.schema.fields[1]!.metadata.get('duckdb:type'), 'BIGINT');
  t.is(String(answer!.schema.fields[1]!.type), 'Int64');
});
