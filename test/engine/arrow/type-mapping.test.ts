import { ANY, DECIMAL, DuckDBSQLNullType, DuckDBVarCharType, INTEGER, LIST, MAP, SQLNULL, STRUCT, VARCHAR } from '@duckdb/node-api';
import { Type } from 'apache-arrow';
import test from 'ava';
import { NullAccumulator } from '../../../core/engine/arrow/accumulators/null-accumulator.js';
import { arrowFieldFor, arrowSchemaForColumns, arrowTypeFor } from '../../../core/engine/arrow/index.js';
import { rowRange } from '../../../core/engine/arrow/row-selection.js';

test('SQLNULL maps to Null, and its accumulator only counts rows', (t) => {
  t.is(arrowTypeFor(SQLNULL).typeId, Type.Null);
  t.true(DuckDBSQLNullType.instance.typeId === SQLNULL.typeId);
  const accumulator = new NullAccumulator();
  accumulator.append(null as never, 10, rowRange(0, 10));
  accumulator.append(null as never, 10, rowRange(5, 3));
  const data = accumulator.finish();
  t.is(data.length, 13);
  t.is(data.nullCount, 13);
  t.is(accumulator.length, 0);
});

test('the JSON alias is tagged as an arrow.json extension; plain VARCHAR is not', (t) => {
  const json = arrowFieldFor('j', new DuckDBVarCharType('JSON'));
  t.is(json.metadata.get('ARROW:extension:name'), 'arrow.json');
  t.is(json.metadata.get('duckdb:type'), 'JSON');
  t.false(arrowFieldFor('v', VARCHAR).metadata.has('ARROW:extension:name'));
});

test('nested types keep names, nullability and Arrow conventions', (t) => {
  const map = arrowTypeFor(MAP(VARCHAR, LIST(INTEGER)));
  t.is(String(map), 'Map<{key:Utf8, value:List<Int32>}>');
  t.false(map.children[0]!.nullable, 'map entries are not nullable');
  t.false(map.children[0]!.type.children[0].nullable, 'map keys are not nullable');
  const struct = arrowTypeFor(STRUCT({ 'a b': INTEGER, c: LIST(VARCHAR) }));
  t.deepEqual(struct.children.map((field) => field.name), ['a b', 'c']);
  t.is(struct.children[1]!.type.children[0].name, 'item');
});

test('types that cannot be in a result are refused with their name', (t) => {
  t.throws(() => arrowTypeFor(ANY), { message: /ANY/ });
});

test('results with the same columns share one schema object; any difference in names or types makes another', (t) => {
  const columns = () => [INTEGER, DECIMAL(18, 2), STRUCT({ a: LIST(VARCHAR) }), new DuckDBVarCharType('JSON')];
  const schema = arrowSchemaForColumns(['id', 'amount', 's', 'j'], columns());
  t.is(arrowSchemaForColumns(['id', 'amount', 's', 'j'], columns()), schema, 'the same object for new type objects describing the same columns');
  t.not(arrowSchemaForColumns(['id', 'amount', 's', 'k'], columns()), schema, 'a name');
  t.not(arrowSchemaForColumns(['id', 'amount', 's', 'j'], [INTEGER, DECIMAL(18, 3), STRUCT({ a: LIST(VARCHAR) }), new DuckDBVarCharType('JSON')]), schema, 'a decimal scale');
  t.not(arrowSchemaForColumns(['id', 'amount', 's', 'j'], [INTEGER, DECIMAL(18, 2), STRUCT({ b: LIST(VARCHAR) }), new DuckDBVarCharType('JSON')]), schema, 'a struct member');
  const plain = arrowSchemaForColumns(['id', 'amount', 's', 'j'], [INTEGER, DECIMAL(18, 2), STRUCT({ a: LIST(VARCHAR) }), VARCHAR]);
  t.not(plain, schema, 'an alias (JSON)');
  t.false(plain.fields[3]!.metadata.has('ARROW:extension:name'));
  t.is(schema.fields[3]!.metadata.get('ARROW:extension:name'), 'arrow.json');
});
