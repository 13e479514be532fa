import test from 'ava';
import { status } from '@grpc/grpc-js';
import { CommandStatementQuerySchema } from '../../core/flight/generated/arrow/flight/protocol/sql/flight_sql_pb.js';
import { QUICKSTART_MANIFEST } from '../helpers/runtime.js';
import { grpcError, withFlight } from './flight-helpers.js';

const setup = { manifest: QUICKSTART_MANIFEST, withQuickstartData: true, ownListener: true };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await sleep(20);
  }
  return condition();
}

test('a paused client makes the server stop pulling batches: memory stays bounded', async (t) => {
  await withFlight(t, setup, async ({ connect, listener, runtime }) => {
    const stats = listener!.stats;
    // gRPC's default 64 KiB window: what the server may push ahead is then only its own buffering.
    const client = connect({ flowControlWindowBytes: 65_535 });
    // About 60 batches of 65,536 rows (~100 MB of Arrow) if the server read ahead.
    const stream = await client.queryStream("SELECT i, i * 3 AS tripled, 'label ' || i AS label FROM range(4000000) t(i)");
    const iterator = stream.batches[Symbol.asyncIterator]();
    await iterator.next();
    stream.pause();
    // Wait until the server has filled the buffers and stopped (on a loaded CI machine that
    // can take a while), then check that it stays stopped.
    let pulledWhilePaused = stats.batchesPulled;
    const deadline = Date.now() + 10_000;
    for (;;) {
      await sleep(500);
      if (stats.batchesPulled === pulledWhilePaused || Date.now() > deadline) break;
      pulledWhilePaused = stats.batchesPulled;
    }
    await sleep(700);
    t.is(stats.batchesPulled, pulledWhilePaused, 'no batch is pulled while the client does not read');
    t.log(`pulled ${pulledWhilePaused} of ~62 batches, then stopped`);
    // What was pulled sits in grpc-js's client buffer (16 messages) and 2 in flight on the server.
    t.true(pulledWhilePaused < 30, `pulled ${pulledWhilePaused} of ~62 batches before stopping`);
    t.true(stats.messagesInFlight <= 2, `${stats.messagesInFlight} messages in flight`);
    stream.resume();
    let rows = 0;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rows += next.value.numRows;
    t.true(rows > 3_900_000);
    t.true(await until(() => runtime.pipeline.activeCount === 0, 2000));
  });
});

test('a client cancelling mid-stream stops the engine query', async (t) => {
  await withFlight(t, setup, async ({ client, runtime, listener }) => {
    const controller = new AbortController();
    const stream = await client.queryStream('SELECT i FROM range(10000000000) t(i)', { signal: controller.signal });
    const iterator = stream.batches[Symbol.asyncIterator]();
    await iterator.next();
    t.is(runtime.pipeline.activeCount, 1);
    controller.abort();
    const started = Date.now();
    t.true(await until(() => runtime.pipeline.activeCount === 0 && listener!.stats.activeStreams === 0, 3000), 'the query ended');
    t.log(`query ended ${Date.now() - started} ms after the cancel`);
    const failure = await grpcError(iterator.next());
    t.is(failure.code, status.CANCELLED);
  });
});

test('cancelling before the first batch interrupts a long aggregate in the engine', async (t) => {
  await withFlight(t, setup, async ({ client, runtime }) => {
    const controller = new AbortController();
    const pending = client.queryStream('SELECT sum(i * i % 7) AS s FROM range(50000000000) t(i)', { signal: controller.signal });
    t.true(await until(() => runtime.pipeline.activeCount === 1, 5000), 'the query started');
    controller.abort();
    const failure = await grpcError(pending);
    t.is(failure.code, status.CANCELLED);
    t.true(await until(() => runtime.pipeline.activeCount === 0, 15_000), 'the engine query was interrupted');
  });
});

test('the CancelFlightInfo action stops a query streamed by another call', async (t) => {
  await withFlight(t, setup, async ({ client, runtime }) => {
    const info = await client.commandInfo(CommandStatementQuerySchema, { query: 'SELECT i FROM range(10000000000) t(i)' });
    const stream = await client.stream(info);
    const iterator = stream.batches[Symbol.asyncIterator]();
    await iterator.next();
    t.true(await client.cancel(info));
    const failure = await grpcError((async () => {
      for (let next = await iterator.next(); !next.done; next = await iterator.next());
    })());
    t.is(failure.code, status.CANCELLED);
    t.true(await until(() => runtime.pipeline.activeCount === 0, 15_000));
    t.is((await grpcError(client.stream(info))).code, status.NOT_FOUND, 'a cancelled ticket cannot be redeemed again');
    t.false(await client.cancel(info), 'nothing left to cancel');
  });
});
