import test from 'ava';
import { Int32, Table, vectorFromArray, type RecordBatch } from 'apache-arrow';
import { defineErrorCodes, GRPC } from '../../core/errors/codes.js';
import { QuarryError } from '../../core/errors/quarry-error.js';
import type { DatasetConnector, FetchSource } from '../../core/engine/sources/connector.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { withRuntime } from '../helpers/runtime.js';

/**
 * A live dataset whose source fails: DATASET_SOURCE_FAILED (502) naming the dataset, unless the
 * source lists the code of its own error as one that passes through (a cluster scheduler's
 * CLUSTER_PARTITION_UNAVAILABLE, 503). The connector is a test plugin whose scan throws.
 */

defineErrorCodes({
  TEST_SOURCE_BUSY: { http: 503, grpc: GRPC.UNAVAILABLE, description: 'Test only: a source that says it is busy.' },
});

const ROWS = new Table({ id: vectorFromArray([1, 2], new Int32()) });

function failingPlugin(): QuarryPlugin {
  const source = (failure: () => Error, passThrough: boolean): FetchSource => ({
    kind: 'fetch',
    schema: async () => ROWS.schema,
    scan: () =>
      (async function* (): AsyncIterable<RecordBatch> {
        yield* [];
        throw failure();
      })(),
    ...(passThrough ? { passThroughCodes: new Set(['TEST_SOURCE_BUSY']) } : {}),
  });
  const connector: DatasetConnector = {
    schemes: ['failing'],
    resolve: (dataset) => {
      switch (dataset.location) {
        case 'busy':
          return source(() => new QuarryError('TEST_SOURCE_BUSY', 'dataset "busy": every replica is busy'), true);
        case 'busy-unlisted':
          return source(() => new QuarryError('TEST_SOURCE_BUSY', 'dataset "busy_unlisted": every replica is busy'), false);
        default:
          return source(() => new Error('connection reset by peer'), true);
      }
    },
  };
  return { name: 'failing-connector', apply: (runtime) => runtime.registerConnector(connector) };
}

const manifest = `version: v2
kind: Spicepod
name: failing
datasets:
  - from: failing:busy
    name: busy
  - from: failing:busy-unlisted
    name: busy_unlisted
  - from: failing:reset
    name: reset
`;

test('a failed live read is DATASET_SOURCE_FAILED naming the dataset, or the source\'s own error when it lists the code as passing through', async (t) => {
  await withRuntime(t, { manifest, bundle: [...defaultPlugins(), failingPlugin()] }, async (context) => {
    const failure = async (sql: string) => {
      const response = await context.sql(sql, { accept: 'application/json' });
      return { status: response.status, ...((await response.json()) as { error: { code: string; message: string } }).error };
    };
    t.like(await failure('SELECT count(*) FROM busy'), { status: 503, code: 'TEST_SOURCE_BUSY', message: 'dataset "busy": every replica is busy' });
    const unlisted = await failure('SELECT count(*) FROM busy_unlisted');
    t.like(unlisted, { status: 502, code: 'DATASET_SOURCE_FAILED' });
    t.regex(unlisted.message, /dataset busy_unlisted is read live from failing:busy-unlisted, and reading it failed: dataset "busy_unlisted": every replica is busy/);
    const reset = await failure('SELECT * FROM reset');
    t.like(reset, { status: 502, code: 'DATASET_SOURCE_FAILED' });
    t.regex(reset.message, /dataset reset is read live from failing:reset, and reading it failed: connection reset by peer/);
  });
});
