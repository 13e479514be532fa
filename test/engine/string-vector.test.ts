import test from 'ava';
import { DuckDBInstance } from '@duckdb/node-api';
import duckdb from '@duckdb/node-bindings';
import { copyStrings, measureStrings } from '../../core/engine/native/string-vector.js';
import { rowIndexes, rowRange } from '../../core/engine/arrow/row-selection.js';

/**
 * The native copier of VARCHAR/BLOB vectors (native/duckdb-string-vector.c), on real DuckDB
 * vectors: inline (<= 12 bytes) and out-of-line strings, empty strings, NULLs, multi-byte
 * UTF-8, a gather selection; and arguments that must throw rather than read or write outside
 * the memory they name.
 */

const VALUES = ['', 'twelve bytes', 'thirteen byte', null, 'ünïcödé ✓ 🚀 text longer than twelve', 'x'.repeat(5000), 'a'];

async function stringVector(t: { teardown: (f: () => void) => void }) {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  t.teardown(() => {
    connection.closeSync();
    instance.closeSync();
  });
  const list = VALUES.map((value, index) => `(${index}, ${value === null ? 'NULL' : `'${value}'`})`).join(', ');
  const result = await connection.run(`SELECT v FROM (VALUES ${list}) t(i, v) ORDER BY i`);
  const chunk = await result.fetchChunk();
  if (!chunk) throw new Error('no chunk');
  // The chunk must outlive the vector's use: keep it referenced.
  t.teardown(() => void chunk);
  return { vector: duckdb.data_chunk_get_vector(chunk.chunk, 0), length: chunk.rowCount };
}

const decode = (out: Uint8Array, offsets: Int32Array, first: number, count: number) =>
  Array.from({ length: count }, (_, i) => Buffer.from(out.subarray(i === 0 ? first : offsets[i - 1]!, offsets[i]!)).toString('utf8'));

test('every selected string is copied whole, NULLs take no bytes, and the offsets follow', async (t) => {
  const { vector, length } = await stringVector(t);
  t.is(length, VALUES.length);
  const expected = VALUES.map((value) => value ?? '');
  const bytes = expected.reduce((sum, value) => sum + Buffer.byteLength(value), 0);
  t.is(measureStrings(vector, length, rowRange(0, length), Infinity, null), bytes);
  const sizes = new Float64Array(length).fill(1);
  measureStrings(vector, length, rowRange(0, length), Infinity, sizes);
  t.deepEqual([...sizes], expected.map((value) => 1 + Buffer.byteLength(value)));

  // Written after 3 bytes already in the buffer, offsets after one already there.
  const out = new Uint8Array(3 + bytes);
  const offsets = new Int32Array(1 + length);
  const end = copyStrings(vector, length, rowRange(0, length), out, 3, offsets, 1);
  t.is(end, 3 + bytes);
  t.deepEqual(decode(out, offsets.subarray(1), 3, length), expected);
});

test('a gather selection copies the rows it names, in its order', async (t) => {
  const { vector, length } = await stringVector(t);
  const rows = rowIndexes(Uint32Array.from([5, 0, 4, 4, 2]));
  const expected = [5, 0, 4, 4, 2].map((row) => VALUES[row]!);
  const bytes = measureStrings(vector, length, rows, Infinity, null);
  t.is(bytes, expected.reduce((sum, value) => sum + Buffer.byteLength(value), 0));
  const out = new Uint8Array(bytes);
  const offsets = new Int32Array(rows.count);
  copyStrings(vector, length, rows, out, 0, offsets, 0);
  t.deepEqual(decode(out, offsets, 0, rows.count), expected);
});

test('a string over the value limit is reported by its row', async (t) => {
  const { vector, length } = await stringVector(t);
  t.is(measureStrings(vector, length, rowRange(0, length), 100, null), -(5 + 1));
  t.is(measureStrings(vector, length, rowRange(0, 5), 100, null) >= 0, true);
});

test('arguments that name memory the call may not touch throw, and nothing is written', async (t) => {
  const { vector, length } = await stringVector(t);
  const out = new Uint8Array(10);
  const offsets = new Int32Array(length);
  const codes = (run: () => unknown) => (t.throws(run) as Error & { code?: string }).code;
  t.is(codes(() => copyStrings({} as never, length, rowRange(0, length), out, 0, offsets, 0)), 'QUARRY_NATIVE');
  t.is(codes(() => measureStrings(duckdb.create_logical_type(duckdb.Type.VARCHAR) as never, length, rowRange(0, 1), Infinity, null)), 'QUARRY_NATIVE');
  t.throws(() => copyStrings(vector, length, rowRange(2, length), new Uint8Array(100_000), 0, new Int32Array(100), 0), { message: /past the vector/ });
  t.throws(() => copyStrings(vector, length, rowIndexes(Uint32Array.from([0, length])), new Uint8Array(100_000), 0, new Int32Array(100), 0), { message: /past the vector/ });
  t.throws(() => measureStrings(vector, length, rowIndexes(Uint32Array.from([1_000_000])), Infinity, null), { message: /past the vector/ });
  t.throws(() => copyStrings(vector, length, rowRange(0, length), new Uint8Array(100_000), 0, new Int32Array(length - 1), 0), { message: /offsets has no room/ });
  t.throws(() => measureStrings(vector, length, rowRange(0, length), Infinity, new Float64Array(1)), { message: /sizes holds fewer/ });
  // Out of room for the bytes: refused at the first string that does not fit, never written past the end.
  const small = new Uint8Array(16).fill(7);
  t.throws(() => copyStrings(vector, length, rowRange(0, length), small.subarray(0, 8), 0, offsets, 0), { message: /out has no room/ });
  t.deepEqual([...small.subarray(8)], new Array(8).fill(7));
  t.throws(() => copyStrings(vector, length, rowRange(0, length), out, -1, offsets, 0), { message: /position/ });
  t.throws(() => copyStrings(vector, length, rowRange(0, length), new Int32Array(4) as never, 0, offsets, 0), { message: /out must be a Uint8Array/ });
});
