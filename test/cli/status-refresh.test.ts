/**
 * `quarry status` and `quarry refresh` against a fake runtime started in the test; the fake
 * stands in for quarryd only until the end-to-end tests run against the real runtime.
 */
import test from 'ava';
import { runQuarry } from './helpers/cli-process.js';
import { FakeRuntime } from './helpers/fake-runtime.js';

async function withRuntime(run: (runtime: FakeRuntime) => Promise<void>, options = {}): Promise<void> {
  const runtime = await FakeRuntime.start(options);
  try {
    await run(runtime);
  } finally {
    await runtime.close();
  }
}

test('status prints NAME ENDPOINT STATUS for every listener, then each dataset with its load', async (t) => {
  await withRuntime(async (runtime) => {
    const result = await runQuarry(['status', '--endpoint', runtime.endpoint]);
    t.is(result.code, 0, result.stderr);
    t.is(
      result.stdout,
      [
        'NAME           ENDPOINT         STATUS',
        'http           127.0.0.1:8090   Ready',
        'flight         127.0.0.1:50051  Disabled',
        'metrics        N/A              Disabled',
        'opentelemetry  127.0.0.1:50052  Error: exporter unreachable',
        '',
        'DATASET  STATUS        ACCELERATED  LOAD',
        'people   Ready         no           live',
        'orders   Ready         yes          loaded 1,234,567 rows, 50.0 MiB in 4s at 10:00:04',
        'trips    Initializing  yes          reading [█████░░░░░░░░░░░░░░░]  25.0%  5,000,000 / 20,000,000 rows  250.0 MiB / 1000.0 MiB  1,000,000 rows/s  ETA 15s  (queries answered by the source meanwhile)',
        '',
      ].join('\n'),
    );
  });
});

test('status reports a 401 as an API key problem', async (t) => {
  await withRuntime(
    async (runtime) => {
      const denied = await runQuarry(['status', '--endpoint', runtime.endpoint]);
      t.is(denied.code, 1);
      t.is(denied.stderr, 'Error: unauthorized: check --api-key (or QUARRY_API_KEY)\n');
      const allowed = await runQuarry(['status', '--endpoint', runtime.endpoint, '--api-key', 'k']);
      t.is(allowed.code, 0, allowed.stderr);
    },
    { apiKey: 'k' },
  );
});

test('status needs an HTTP endpoint', async (t) => {
  const result = await runQuarry(['status', '--endpoint', 'grpc+tls://127.0.0.1:50051']);
  t.is(result.code, 2);
  t.regex(result.stderr, /quarry status talks to the HTTP API/);
});

test('refresh prints progress and the runtime message, sending no body without overrides', async (t) => {
  await withRuntime(async (runtime) => {
    const result = await runQuarry(['refresh', 'taxi_trips', '--endpoint', runtime.endpoint]);
    t.is(result.code, 0, result.stderr);
    t.is(result.stdout, 'Refreshing dataset taxi_trips ...\nDataset taxi_trips refreshed.\n');
    const request = runtime.requests[0]!;
    t.is(request.method, 'POST');
    t.is(request.path, '/v1/datasets/taxi_trips/acceleration/refresh');
    t.is(request.body, '');
  });
});

test('refresh sends --refresh-sql and --refresh-mode as JSON overrides', async (t) => {
  await withRuntime(async (runtime) => {
    const result = await runQuarry([
      'refresh',
      'taxi_trips',
      '--endpoint',
      runtime.endpoint,
      '--refresh-mode',
      'append',
      '--refresh-sql',
      'SELECT * FROM taxi_trips WHERE fare > 10',
    ]);
    t.is(result.code, 0, result.stderr);
    t.is(result.stdout, 'Refreshing dataset taxi_trips with append mode ...\nDataset taxi_trips refreshed.\n');
    const request = runtime.requests[0]!;
    t.regex(String(request.headers['content-type']), /^application\/json/);
    t.deepEqual(JSON.parse(request.body), { refresh_sql: 'SELECT * FROM taxi_trips WHERE fare > 10', refresh_mode: 'append' });
  });
});

test('refresh of an unknown or non-accelerated dataset fails with the runtime message', async (t) => {
  await withRuntime(async (runtime) => {
    const missing = await runQuarry(['refresh', 'no such/name', '--endpoint', runtime.endpoint]);
    t.is(missing.code, 1);
    t.is(missing.stderr, 'Error: [DATASET_NOT_FOUND] Dataset no such/name not found\n');
    t.is(runtime.requests[0]!.path, '/v1/datasets/no%20such%2Fname/acceleration/refresh');
    const plain = await runQuarry(['refresh', 'plain_files', '--endpoint', runtime.endpoint]);
    t.is(plain.code, 1);
    t.is(plain.stderr, 'Error: [DATASET_NOT_ACCELERATED] Dataset plain_files does not have acceleration enabled\n');
  });
});

test('refresh checks its arguments', async (t) => {
  const none = await runQuarry(['refresh']);
  t.is(none.code, 2);
  t.regex(none.stderr, /quarry refresh needs a dataset name/);
  const badMode = await runQuarry(['refresh', 'x', '--refresh-mode', 'changes']);
  t.is(badMode.code, 2);
  t.regex(badMode.stderr, /--refresh-mode "changes" is not one of full, append/);
});
