import test, { type ExecutionContext } from 'ava';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { once } from 'node:events';
import { status } from '@grpc/grpc-js';
import { Table, type RecordBatch } from 'apache-arrow';
import { Http2DoGetClient } from '../../core/flight/client/http2-doget.js';
import type { FlightStream } from '../../core/flight/client/flight-client.js';
import { packAny } from '../../core/flight/flight-any.js';
import { CommandStatementQuerySchema } from '../../core/flight/generated/arrow/flight/protocol/sql/flight_sql_pb.js';
import { pythonClientsFor } from '../helpers/python-clients.js';
import { QUICKSTART_MANIFEST, repositoryRoot } from '../helpers/runtime.js';
import { grpcError, withFlight } from './flight-helpers.js';

// The DoGet client a scheduler's scan legs use (Node's HTTP/2, no grpc-js), against Quarry's
// Flight listener and against Arrow C++'s own Flight server (pyarrow), which Quarry did not write.

const setup = { manifest: QUICKSTART_MANIFEST, withQuickstartData: true };
const statement = (sql: string) => packAny(CommandStatementQuerySchema, { query: sql });

async function collect(stream: FlightStream): Promise<Table> {
  const batches: RecordBatch[] = [];
  for await (const batch of stream.batches) batches.push(batch);
  return batches.length > 0 ? new Table(batches) : new Table(stream.schema);
}

const rowsJson = (table: Table) => JSON.stringify(table.toArray(), (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return condition();
}

test('answers as the grpc-js client does: every row and type, a multi-megabyte result, the server\'s error codes', async (t) => {
  await withFlight(t, setup, async ({ client, runtime }) => {
    const lean = new Http2DoGetClient({ address: runtime.flightEndpoint });
    try {
      const sql = 'SELECT * FROM orders ORDER BY order_id';
      const expected = (await client.flight.doGetTable(statement(sql))).table;
      const answered = await collect(await lean.doGet(statement(sql), { headers: { 'cache-control': 'no-cache' } }));
      t.deepEqual(answered.schema.fields.map(String), expected.schema.fields.map(String));
      t.is(answered.numRows, 5000);
      t.is(rowsJson(answered), rowsJson(expected));

      // ~5 MB of Arrow: FlightData messages spread over many 16 KiB HTTP/2 frames.
      const large = await collect(await lean.doGet(statement("SELECT i, 'label ' || i AS label FROM range(300000) t(i)")));
      t.is(large.numRows, 300_000);
      let sum = 0n;
      for (const value of large.getChild('i')!) sum += value as bigint;
      t.is(sum, 299_999n * 300_000n / 2n);
      t.is(large.getChild('label')!.get(123_456), 'label 123456');

      // A refusal keeps the server's status, message and Quarry error code, as grpc-js reports them.
      const viaGrpcJs = await grpcError(client.flight.doGet(statement('SELECT * FROM no_such_table')));
      const failure = await grpcError(lean.doGet(statement('SELECT * FROM no_such_table')));
      t.is(failure.code, viaGrpcJs.code);
      t.is(failure.details, viaGrpcJs.details);
      t.regex(failure.details, /no_such_table/);
      t.is(failure.metadata.get('x-quarry-error-code')[0], viaGrpcJs.metadata.get('x-quarry-error-code')[0]);
      t.truthy(failure.metadata.get('x-quarry-error-code')[0]);
      // The connection is still good after an error.
      t.is((await collect(await lean.doGet(statement('SELECT 42 AS answer')))).getChild('answer')!.get(0), 42);
    } finally {
      await lean.close();
    }
  });
});

test('cancelling or abandoning a call stops the server\'s query; an unreachable server is an error, not a crash', async (t) => {
  await withFlight(t, setup, async ({ runtime }) => {
    const lean = new Http2DoGetClient({ address: runtime.flightEndpoint });
    try {
      const controller = new AbortController();
      const cancelled = await lean.doGet(statement('SELECT i FROM range(10000000000) t(i)'), { signal: controller.signal });
      const iterator = cancelled.batches[Symbol.asyncIterator]();
      await iterator.next();
      t.is(runtime.pipeline.activeCount, 1);
      controller.abort();
      t.true(await until(() => runtime.pipeline.activeCount === 0, 10_000), 'the cancelled query ended');
      t.is((await grpcError(iterator.next())).code, status.CANCELLED);

      const abandoned = await lean.doGet(statement('SELECT i FROM range(10000000000) t(i)'));
      for await (const batch of abandoned.batches) if (batch.numRows > 0) break;
      t.true(await until(() => runtime.pipeline.activeCount === 0, 10_000), 'the abandoned query ended');

      // Aborted before the call: no query runs.
      const before = new AbortController();
      before.abort();
      t.is((await grpcError(lean.doGet(statement('SELECT 1'), { signal: before.signal }))).code, status.CANCELLED);

    } finally {
      await lean.close();
    }
    // A call the server has ended whose rows nobody read, then dropped: it must not hold the
    // connection open (an executor's listener waits for its sessions when it shuts down). This
    // client's close() never gives up waiting, so it returns only if nothing holds it.
    const patient = new Http2DoGetClient({ address: runtime.flightEndpoint, closeWaitMs: 24 * 3600_000 });
    // Several batches: the server sends them all (they fit the flow-control window) and ends
    // the call while they wait, unread, behind the schema.
    const unread = await patient.doGet(statement('SELECT i FROM range(300000) t(i)'));
    t.true(await until(() => runtime.pipeline.activeCount === 0, 10_000), 'the server ended the call');
    unread.cancel();
    await patient.close();
    t.pass('the connection closed');

    const nowhere = new Http2DoGetClient({ address: '127.0.0.1:1' });
    const failure = await grpcError(nowhere.doGet(statement('SELECT 1')));
    t.is(failure.code, status.UNAVAILABLE);
    t.regex(failure.details, /ECONNREFUSED/);
    await nowhere.close();
  });
});

async function withPyarrowServer(t: ExecutionContext, body: (address: string) => Promise<void>): Promise<void> {
  if (!(await pythonClientsFor(t))) return;
  const child = spawn('python3', [path.join(repositoryRoot, 'test/flight/python/flight_server.py')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  try {
    const port = await new Promise<string>((resolve, reject) => {
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('\n')) resolve(output.trim());
      });
      child.once('exit', (code) => reject(new Error(`the pyarrow Flight server exited (${code}): ${errors}`)));
    });
    await body(`127.0.0.1:${port}`);
  } finally {
    child.kill();
    if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  }
}

test('reads Arrow C++\'s Flight server (pyarrow): large batches, a trailers-only refusal, an error after data', async (t) => {
  await withPyarrowServer(t, async (address) => {
    const lean = new Http2DoGetClient({ address });
    try {
      const rows = await collect(await lean.doGet(Buffer.from('rows')));
      t.is(rows.numRows, 200_000);
      t.is(rows.batches.length, 4);
      t.is(rows.getChild('i')!.get(199_999), 199_999n);
      t.is(rows.getChild('label')!.get(77_777), 'label 77777');

      const refused = await grpcError(lean.doGet(Buffer.from('refused')));
      t.is(refused.code, status.PERMISSION_DENIED);
      t.regex(refused.details, /not for you/);
      // Arrow's binary status detail (`-bin` metadata travels base64-encoded).
      t.is(String(refused.metadata.get('x-arrow-status-detail-bin')[0]), 'Unauthorized');

      // The first batch arrives; the status after it fails the read.
      const broken = await lean.doGet(Buffer.from('mid'));
      const iterator = broken.batches[Symbol.asyncIterator]();
      t.is((await iterator.next()).value?.numRows, 3);
      const failure = await grpcError(iterator.next());
      t.is(failure.code, status.INTERNAL);
      t.regex(failure.details, /broke after the first batch/);
    } finally {
      await lean.close();
    }
  });
});
