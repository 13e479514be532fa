import test from 'ava';
import { Table, Utf8, tableFromIPC, tableToIPC, vectorFromArray } from 'apache-arrow';
import { ARROW_OBJECT_BYTES, decodeStored, encodeResult } from '../../plugins/results-cache/stored-result.js';

/** What a stored batch's Arrow objects count beside its buffers: the batch and one data object per column. */
const objects = (batches: number, columns: number) => batches * (columns + 1) * ARROW_OBJECT_BYTES;

test('encoding none copies a result whose buffers are windows on a larger buffer (a slice of decoded batches): bytes count what is held', (t) => {
  // Decoded IPC batches are windows on the whole IPC message (as a cluster leg's batches are).
  const big = new Table({ id: vectorFromArray(Int32Array.from({ length: 100_000 }, (_, index) => index)), name: vectorFromArray(Array.from({ length: 100_000 }, (_, index) => `row ${index}`), new Utf8()) });
  const decoded = tableFromIPC(tableToIPC(big, 'stream'));
  const small = decoded.slice(0, 3);
  const window = small.batches[0]!.data.children[0]!.values as Int32Array;
  t.true(window.buffer.byteLength > 1_000_000, 'the source batch is a window on the whole IPC message');

  const stored = encodeResult(small.schema, small.batches, 'none');
  const column = stored.batches![0]!.data.children[0]!;
  t.true(column.values.buffer.byteLength < 2_000, 'the held buffer is no larger than the rows need');
  t.true(stored.bytes - objects(1, 2) < 2_000, `${stored.bytes} bytes held for 3 rows`);
  t.is(stored.rows, 3);
  const { batches } = decodeStored(stored);
  t.deepEqual(batches.flatMap((batch) => batch.toArray().map((row) => row.toJSON())), small.toArray().map((row) => row.toJSON()));
});

test('encoding none keeps batches that own exactly their rows\' memory as they are (the engine\'s), and counts their bytes', (t) => {
  const table = new Table({ id: vectorFromArray(Int32Array.from([1, 2, 3])), name: vectorFromArray(['a', 'bb', 'ccc'], new Utf8()) });
  const stored = encodeResult(table.schema, table.batches, 'none');
  t.is(stored.batches![0], table.batches[0], 'no copy');
  // Three INT32 values, four offsets and six bytes of text, each buffer padded to 64 bytes by Arrow's builders.
  const buffers = stored.bytes - objects(1, 2);
  t.true(buffers >= 12 + 16 + 6 && buffers <= 3 * 64 + 8, `${stored.bytes} bytes`);
});
