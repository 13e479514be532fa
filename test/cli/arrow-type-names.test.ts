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
  Int16,
  Int32,
  Int64,
  Int8,
  IntervalMonthDayNano,
  List,
  Map_,
  Null,
  Struct,
  TimeMicrosecond,
  Timestamp,
  TimeUnit,
  Uint64,
  Utf8,
} from 'apache-arrow';
import { arrowTypeName, columnTypeName, isNumericType } from '../../cli/quarry/render/arrow-type-names.js';

test('scalar Arrow types get SQL-style lower-case names', (t) => {
  t.is(arrowTypeName(new Int8()), 'tinyint');
  t.is(arrowTypeName(new Int16()), 'smallint');
  t.is(arrowTypeName(new Int32()), 'integer');
  t.is(arrowTypeName(new Int64()), 'bigint');
  t.is(arrowTypeName(new Uint64()), 'ubigint');
  t.is(arrowTypeName(new Float32()), 'float');
  t.is(arrowTypeName(new Float64()), 'double');
  t.is(arrowTypeName(new Decimal(2, 12, 128)), 'decimal(12,2)');
  t.is(arrowTypeName(new Utf8()), 'varchar');
  t.is(arrowTypeName(new Binary()), 'blob');
  t.is(arrowTypeName(new Bool()), 'boolean');
  t.is(arrowTypeName(new DateDay()), 'date');
  t.is(arrowTypeName(new TimeMicrosecond()), 'time');
  t.is(arrowTypeName(new Timestamp(TimeUnit.MICROSECOND)), 'timestamp');
  t.is(arrowTypeName(new Timestamp(TimeUnit.NANOSECOND)), 'timestamp_ns');
  t.is(arrowTypeName(new Timestamp(TimeUnit.MICROSECOND, 'UTC')), 'timestamptz');
  t.is(arrowTypeName(new IntervalMonthDayNano()), 'interval');
  t.is(arrowTypeName(new Null()), 'null');
});

test('nested types name their members', (t) => {
  t.is(arrowTypeName(new List(new Field('item', new Int32()))), 'list<integer>');
  t.is(arrowTypeName(new FixedSizeList(3, new Field('item', new Float64()))), 'array<double, 3>');
  t.is(arrowTypeName(new Struct([new Field('a', new Int32()), new Field('b', new List(new Field('item', new Utf8())))])), 'struct<a: integer, b: list<varchar>>');
  const entries = new Struct([new Field('key', new Utf8(), false), new Field('value', new Int64())]);
  t.is(arrowTypeName(new Map_(new Field('entries', entries, false))), 'map<varchar, bigint>');
  t.is(arrowTypeName(new Dictionary(new Utf8(), new Int32())), 'varchar');
});

test("quarryd's duckdb:type metadata names types that travel as a stand-in", (t) => {
  const tagged = (name: string, type: ConstructorParameters<typeof Field>[1], duckdbType: string) =>
    new Field(name, type, true, new Map([['duckdb:type', duckdbType]]));
  t.is(columnTypeName(tagged('id', new Utf8(), 'UUID')), 'uuid');
  t.is(columnTypeName(tagged('doc', new Utf8(), 'JSON')), 'json');
  t.is(columnTypeName(tagged('h', new Decimal(0, 38, 128), 'HUGEINT')), 'hugeint');
  t.is(columnTypeName(tagged('d', new Decimal(2, 12, 128), 'DECIMAL(12,2)')), 'decimal(12,2)');
  // Metadata that does not fit the Arrow type is ignored rather than trusted.
  t.is(columnTypeName(tagged('n', new Int32(), 'UUID')), 'integer');
  t.is(columnTypeName(new Field('plain', new Utf8())), 'varchar');
});

test('numbers are the right-aligned columns', (t) => {
  t.true(isNumericType(new Int64()));
  t.true(isNumericType(new Decimal(2, 10, 128)));
  t.true(isNumericType(new Float64()));
  t.false(isNumericType(new Utf8()));
  t.false(isNumericType(new DateDay()));
});
