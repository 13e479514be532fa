import test from 'ava';
import { GrpcMessageSplitter } from '../../core/flight/client/grpc-message-splitter.js';
import { GrpcStatusError } from '../../core/flight/client/grpc-status-error.js';

/** gRPC framing: flag 0 (uncompressed), the length big-endian, the message. */
function framed(message: Buffer): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(message.byteLength, 1);
  return Buffer.concat([prefix, message]);
}

test('messages come out whole and in order however the frames cut them', (t) => {
  const messages = [Buffer.from('first'), Buffer.alloc(0), Buffer.alloc(70_000, 7), Buffer.from('last one')];
  const body = Buffer.concat(messages.map((message) => framed(message)));
  // Every cut size from one byte (prefixes split too) to the whole body at once.
  for (const cut of [1, 2, 3, 5, 7, 4096, 16_384, body.byteLength]) {
    const splitter = new GrpcMessageSplitter();
    const out: Buffer[] = [];
    for (let start = 0; start < body.byteLength; start += cut) out.push(...splitter.push(body.subarray(start, start + cut)));
    t.deepEqual(out.map((message) => message.toString('hex')), messages.map((message) => message.toString('hex')), `chunks of ${cut} bytes`);
    t.is(splitter.pending, 0);
  }
});

test('a message cut short is left pending; a compressed one is refused', (t) => {
  const splitter = new GrpcMessageSplitter();
  t.deepEqual(splitter.push(framed(Buffer.from('whole')).subarray(0, 8)), []);
  t.is(splitter.pending, 8);
  const compressed = framed(Buffer.from('zipped'));
  compressed[0] = 1;
  const error = t.throws(() => new GrpcMessageSplitter().push(compressed), { instanceOf: GrpcStatusError });
  t.regex(error!.message, /compressed gRPC message/);
});
