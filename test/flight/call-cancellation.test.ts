import test from 'ava';
import { EventEmitter } from 'node:events';
import { cancellationOf } from '../../core/flight/call-handlers.js';

// grpc-js emits 'cancelled' when a call's stream closes, also after the call ended normally.

test('a cancel while the body runs aborts its signal, and settling reports it', (t) => {
  const call = new EventEmitter();
  const cancellation = cancellationOf(call);
  call.emit('cancelled');
  t.true(cancellation.signal.aborted);
  t.true(cancellation.settled(), 'the body ended after the client cancelled: no status goes out');
});

test('the close of a call whose body already settled does not abort its signal', (t) => {
  const call = new EventEmitter();
  const cancellation = cancellationOf(call);
  let aborts = 0;
  cancellation.signal.addEventListener('abort', () => aborts++);
  t.false(cancellation.settled());
  call.emit('cancelled');
  t.false(cancellation.signal.aborted);
  t.is(aborts, 0);
});
