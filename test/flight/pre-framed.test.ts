import test from 'ava';
import { acceptPreFramedMessages, GRPC_PREFIX_BYTES, markPreFramed } from '../../core/flight/pre-framed-messages.js';

/** grpc-js's server call as far as the change depends on it: serializeMessage frames a copy. */
class GrpcLikeCall {
  framedByGrpc = 0;
  serializeMessage(value: Buffer): Buffer {
    this.framedByGrpc++;
    const output = Buffer.allocUnsafe(value.byteLength + 5);
    output[0] = 0;
    output.writeUInt32BE(value.byteLength, 1);
    value.copy(output, 5);
    return output;
  }
  sendMessage(): void {}
}

test('a marked frame goes out as it is; any other message is framed by grpc-js as before', (t) => {
  const call = new GrpcLikeCall();
  t.true(acceptPreFramedMessages({ call }));
  t.true(acceptPreFramedMessages({ call }), 'a second stream of the same call changes nothing more');
  const message = Buffer.from('flight data');
  const frame = Buffer.alloc(GRPC_PREFIX_BYTES + message.byteLength);
  message.copy(frame, GRPC_PREFIX_BYTES);
  const marked = markPreFramed(frame, message.byteLength);
  t.is(call.serializeMessage(marked), marked, 'the very buffer, no copy');
  t.deepEqual([...marked.subarray(0, 5)], [0, 0, 0, 0, message.byteLength]);
  t.is(call.framedByGrpc, 0);
  const plain = call.serializeMessage(Buffer.from('plain'));
  t.is(call.framedByGrpc, 1);
  t.deepEqual([...plain], [0, 0, 0, 0, 5, ...Buffer.from('plain')]);
  // The same bytes unmarked are framed again.
  t.is(call.serializeMessage(Buffer.from(frame)).byteLength, frame.byteLength + 5);
});

test('a stream whose call is not grpc-js\'s server call is left alone', (t) => {
  t.false(acceptPreFramedMessages({}));
  t.false(acceptPreFramedMessages({ call: null }));
  t.false(acceptPreFramedMessages({ call: { sendMessage() {} } }));
  t.false(acceptPreFramedMessages({ call: { serializeMessage: 1, sendMessage() {} } }));
});
