import { Field, Int32, Schema, Utf8, vectorFromArray, makeData, Struct, RecordBatch } from 'apache-arrow';
import test from 'ava';
import { encodeJson, encodeNdjson } from '../../../core/http/encoders/index.js';
import { concat, inputOf } from './helpers/encode.js';

// Answers of one schema share kept writers (WriterPool): nothing of one answer may show in the next.
const schema = new Schema([new Field('id', new Int32(), true), new Field('note', new Utf8(), true)]);

function batch(ids: Array<number | null>, notes: Array<string | null>): RecordBatch {
  const children = [vectorFromArray(ids, new Int32()).data[0]!, vectorFromArray(notes, new Utf8()).data[0]!];
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: ids.length, nullCount: 0, children }));
}

const text = async (chunks: AsyncIterable<Buffer>) => (await concat(chunks)).body.toString('utf8');

test('consecutive JSON answers of one schema are each whole and only their own, after an abandoned one too', async (t) => {
  const long = 'x'.repeat(5000);
  t.is(await text(encodeJson(inputOf(schema, [batch([1, null], [long, null])]))), `[{"id":1,"note":"${long}"},{"id":null,"note":null}]`);
  t.is(await text(encodeJson(inputOf(schema, [batch([2], ['b']), batch([3], ['c'])]))), '[{"id":2,"note":"b"},{"id":3,"note":"c"}]');
  // An answer given up after its first piece (a client gone): its writer is handed back mid-answer.
  const abandoned = encodeJson(inputOf(schema, [batch([4], ['d']), batch([9], ['never sent'])]), { chunkBytes: 1 });
  let sent = '';
  while (!sent.includes('"d"}')) sent += (await abandoned.next()).value!.toString('utf8');
  await abandoned.return(undefined);
  t.is(sent, '[{"id":4,"note":"d"}');
  t.is(await text(encodeJson(inputOf(schema, [batch([5], ['e'])]))), '[{"id":5,"note":"e"}]', 'no separator carried over from the abandoned answer');
  t.is(await text(encodeJson(inputOf(schema, []))), '[]');
  // Several at once (a cache hit served to many clients): each its own writer.
  const many = await Promise.all([6, 7, 8].map((id) => text(encodeJson(inputOf(schema, [batch([id, id], [String(id), null])])))));
  t.deepEqual(many, [6, 7, 8].map((id) => `[{"id":${id},"note":"${id}"},{"id":${id},"note":null}]`));
});

test('NDJSON answers of one schema are kept apart from JSON ones and from each other', async (t) => {
  t.is(await text(encodeNdjson(inputOf(schema, [batch([1, 2], ['a', 'b'])]))), '{"id":1,"note":"a"}\n{"id":2,"note":"b"}\n');
  t.is(await text(encodeJson(inputOf(schema, [batch([3], ['c'])]))), '[{"id":3,"note":"c"}]');
  t.is(await text(encodeNdjson(inputOf(schema, [batch([4], ['d'])]))), '{"id":4,"note":"d"}\n');
});
