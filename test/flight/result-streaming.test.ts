import test from 'ava';
import { Table, Utf8, vectorFromArray, type RecordBatch } from 'apache-arrow';
import { streamResult, type WritableCall } from '../../core/flight/result-streaming.js';
import { FlightStats } from '../../core/flight/flight-stats.js';

/**
 * The sender's back-pressure, against a stand-in for a grpc-js server stream whose writes
 * complete only when the test says (a real stream completes them when HTTP/2 has sent the
 * bytes, which a test cannot hold back reliably): small messages go out back to back, large
 * ones wait for gRPC two at a time.
 */
function heldCall(): { call: WritableCall; written: Buffer[]; complete(): void } {
  const pending: Array<() => void> = [];
  const written: Buffer[] = [];
  const call: WritableCall = {
    write(chunk, callback) {
      written.push(chunk);
      pending.push(() => callback());
      return true;
    },
    once: () => undefined,
    removeListener: () => undefined,
  };
  return { call, written, complete: () => pending.splice(0).forEach((done) => done()) };
}

function batchesOf(rows: number, count: number): { schema: Table['schema']; batches: AsyncIterable<RecordBatch>; pulled: () => number } {
  const table = new Table({ label: vectorFromArray(Array.from({ length: rows }, (_, index) => `row ${index} `.padEnd(40, '.')), new Utf8()) });
  let pulled = 0;
  return {
    schema: table.schema,
    pulled: () => pulled,
    batches: (async function* () {
      for (let index = 0; index < count; index++) {
        pulled += 1;
        yield table.batches[0]!;
      }
    })(),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('a small result is pulled and handed to gRPC whole without waiting for a write to complete', async (t) => {
  const { call, written, complete } = heldCall();
  const result = batchesOf(1, 3);
  const streamed = streamResult(call, result, { maxMessageBytes: 4 * 1024 * 1024, signal: new AbortController().signal, stats: new FlightStats() });
  for (let turn = 0; turn < 10; turn++) await settle();
  t.is(result.pulled(), 3, 'every batch pulled while no write completed');
  t.is(written.length, 4, 'the schema message and three batches handed to gRPC');
  complete();
  t.deepEqual(await streamed, { rows: 3 });
});

test('large messages wait for gRPC: at most two are handed over and not written', async (t) => {
  const { call, written, complete } = heldCall();
  const stats = new FlightStats();
  const result = batchesOf(20_000, 5); // about 800 KB a batch
  const streamed = streamResult(call, result, { maxMessageBytes: 4 * 1024 * 1024, signal: new AbortController().signal, stats });
  for (let turn = 0; turn < 10; turn++) await settle();
  t.is(written.length, 2, 'the schema message and one batch, then it waits');
  t.is(result.pulled(), 1);
  while (written.length < 6) {
    complete();
    for (let turn = 0; turn < 5; turn++) await settle();
    t.true(stats.messagesInFlight <= 2, `${stats.messagesInFlight} in flight`);
  }
  complete();
  t.deepEqual(await streamed, { rows: 100_000 });
});
