import test from 'ava';
import type { Schema } from 'apache-arrow';
import { FetchDatasets } from '../../core/engine/fetch/fetch-datasets.js';
import { PendingSchemas } from '../../core/engine/fetch/pending-schemas.js';
import type { FetchSource } from '../../core/engine/sources/connector.js';
import { createLogger } from '../../core/log.js';
import { datasetSchema } from '../../core/manifest/sections/datasets.js';

/**
 * Retries of a source's columns: an attempt that failed fast waits a growing backoff before the
 * next; one that timed out (the source was waited on for its whole timeout) is followed by the
 * next at once, so a scheduler keeps waiting for its first executor without gaps.
 */

const log = createLogger({ sink: () => undefined });
const config = datasetSchema.parse({ from: 'gated:x', name: 'x' });

function source(schema: (signal: AbortSignal) => Promise<Schema>): FetchSource {
  return { kind: 'fetch', schema, scan: () => (async function* () {})() };
}

function setUp(schemaTimeoutMs: number, answer: (signal: AbortSignal) => Promise<Schema>) {
  const fetch = new FetchDatasets({ connect: () => Promise.reject(new Error('no engine here')), log, schemaTimeoutMs });
  const schemas = new PendingSchemas({ fetch, log });
  const signals: AbortSignal[] = [];
  schemas.ask(config, source((signal) => {
    signals.push(signal);
    return answer(signal);
  }));
  return { fetch, schemas, signals };
}

test('a timed-out attempt is made again at once; the error says it timed out', async (t) => {
  // A source that never answers and ignores its signal: the attempt still ends at the timeout.
  const { fetch, schemas, signals } = setUp(100, () => new Promise<Schema>(() => undefined));
  // AbortSignal.timeout's timer does not keep the process alive (a runtime's listeners do).
  const alive = setInterval(() => undefined, 50);
  t.teardown(() => clearInterval(alive));
  const error = await t.throwsAsync(schemas.answer('x')!);
  t.is(error!.message, 'dataset x: its source (gated:x) did not give its columns within 100ms (no answer)');
  const before = Date.now();
  const retryAt = schemas.retryLater('x', error, () => undefined);
  t.true(Date.parse(retryAt!) <= before + 1, 'no backoff after a timeout');
  await new Promise<void>((resolve) => {
    const poll = () => (signals.length === 2 ? resolve() : setTimeout(poll, 10));
    poll();
  });
  t.true(schemas.has('x'));
  schemas.close();
  fetch.close();
  t.true(signals[1]!.aborted, 'closing aborts the attempt running');
});

test('an attempt that failed fast waits a backoff that grows with each failure', async (t) => {
  const { fetch, schemas } = setUp(60_000, () => Promise.reject(new Error('connection refused')));
  const error = await t.throwsAsync(schemas.answer('x')!);
  t.is(error!.message, 'dataset x: could not read its columns from gated:x: connection refused');
  const before = Date.now();
  const retryAt = schemas.retryLater('x', error, () => undefined);
  t.true(Date.parse(retryAt!) >= before + 1000, 'the first retry waits 1 s');
  t.regex(schemas.describe('x')!, /^the next attempt to read its columns from gated:x, at \d{4}-/);
  t.is(schemas.notReady('x', error!.message)?.code, 'DATASET_NOT_READY');
  schemas.close();
  fetch.close();
});
