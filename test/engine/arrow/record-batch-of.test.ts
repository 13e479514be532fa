import { Field, Int32, RecordBatch, Schema, Struct, Table, Utf8, makeData, tableFromIPC, tableToIPC, vectorFromArray } from 'apache-arrow';
import test from 'ava';
import { recordBatchOf } from '../../../core/engine/arrow/record-batch-of.js';

// recordBatchOf makes a batch the way RecordBatch's constructor would leave it, without its
// per-batch Schema rebuild: on an Arrow upgrade that changes the class's fields, this fails.
test('a batch made by recordBatchOf equals the constructor\'s, with the very schema it was given', (t) => {
  const schema = new Schema([new Field('id', new Int32(), false), new Field('name', new Utf8(), true, new Map([['k', 'v']]))], new Map([['origin', 'test']]));
  const children = [vectorFromArray([1, 2, 3], new Int32()).data[0]!, vectorFromArray(['a', null, 'c'], new Utf8()).data[0]!];
  const data = makeData({ type: new Struct(schema.fields), length: 3, nullCount: 0, children });
  const made = recordBatchOf(schema, data);
  const constructed = new RecordBatch(schema, data);
  t.true(made instanceof RecordBatch);
  t.is(made.schema, schema);
  t.not(constructed.schema, schema, 'the constructor builds a schema of its own (why recordBatchOf exists)');
  t.is(made.numRows, 3);
  t.is(made.numCols, 2);
  t.is(made.nullCount, constructed.nullCount);
  t.deepEqual(made.metadata, constructed.metadata);
  t.deepEqual(made.dictionaries, constructed.dictionaries);
  t.deepEqual(made.toArray().map((row) => row.toJSON()), constructed.toArray().map((row) => row.toJSON()));
  t.deepEqual(made.getChild('name')?.toArray(), ['a', null, 'c']);
  t.deepEqual(made.slice(1, 3).toArray().map((row) => row.toJSON()), [{ id: 2, name: null }, { id: 3, name: 'c' }]);
  // Through the IPC writer and reader, field and schema metadata included.
  const decoded = tableFromIPC(tableToIPC(new Table(schema, [made]), 'stream'));
  t.deepEqual(decoded.toArray().map((row) => row.toJSON()), [{ id: 1, name: 'a' }, { id: 2, name: null }, { id: 3, name: 'c' }]);
  t.is(decoded.schema.metadata.get('origin'), 'test');
  t.is(decoded.schema.fields[1]!.metadata.get('k'), 'v');
});
