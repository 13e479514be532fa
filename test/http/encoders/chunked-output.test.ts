import test from 'ava';
import { ChunkedOutput } from '../../../core/http/encoders/chunked-output.js';

const CHUNK = 256 * 1024;

test('a short answer is handed out in memory of its own size, not as a view pinning a whole chunk', (t) => {
  const output = new ChunkedOutput(CHUNK);
  output.write(Buffer.from('[{"status":"paid","n":143}]'));
  const pieces = output.take(true);
  t.is(pieces.length, 1);
  t.is(pieces[0]!.toString(), '[{"status":"paid","n":143}]');
  // A results cache keeping this body must not keep 256 KiB alive for 27 bytes.
  t.true(pieces[0]!.buffer.byteLength < 16 * 1024, `backed by ${pieces[0]!.buffer.byteLength} bytes`);
});

test('a large answer grows its area, is cut into even pieces of at most a chunk, every byte in order', (t) => {
  const output = new ChunkedOutput(CHUNK);
  const written: Buffer[] = [];
  const pieces: Buffer[] = [];
  for (let index = 0; index < 2_000; index++) {
    const row = Buffer.from(`{"id":${index},"label":"${'x'.repeat(index % 300)}"},`);
    written.push(row);
    output.write(row);
    if (output.hasReady) pieces.push(...output.take());
  }
  pieces.push(...output.take(true));
  t.deepEqual(Buffer.concat(pieces), Buffer.concat(written));
  t.true(pieces.length > 1);
  for (const piece of pieces) t.true(piece.length <= CHUNK);
  t.true(pieces.slice(0, -1).every((piece) => piece.length >= CHUNK / 2), 'full pieces, not a trickle of small ones');
});

test('a reservation larger than a chunk gets room for all of it at once', (t) => {
  const output = new ChunkedOutput(CHUNK);
  const big = Buffer.alloc(CHUNK * 2 + 17, 7);
  output.write(Buffer.from('['));
  output.write(big);
  output.write(Buffer.from(']'));
  const all = Buffer.concat(output.take(true));
  t.is(all.length, big.length + 2);
  t.is(all[0], '['.charCodeAt(0));
  t.is(all[all.length - 1], ']'.charCodeAt(0));
});
