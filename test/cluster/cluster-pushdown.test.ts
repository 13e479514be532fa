import test from 'ava';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { FileObjectStore } from '../../core/object-store/file-object-store.js';
import { FlightSqlClient } from '../../core/flight/client/flight-sql-client.js';
import { ownedPartitionCounts } from '../../plugins/scheduler/cluster-document.js';
import { ClusterState } from '../../plugins/scheduler/cluster-state.js';
import { flightEndpointOf, startDaemon, type Daemon } from '../helpers/daemon.js';
import { pythonClientsFor } from '../helpers/python-clients.js';
import { repositoryRoot, writeManifestDirectory } from '../helpers/runtime.js';
import { spawnScheduler, stopAll, waitFor } from './cluster-helpers.js';

// Real quarryd processes on loopback: a scheduler pushes queries over one partitioned dataset
// into its three executors (whole on one executor, partial aggregates, top-k, unions) and must
// answer exactly as one node holding all the data: same rows, same column names and types.

const datasets = `
datasets:
  - from: file:data/metrics.parquet
    name: metrics
    acceleration:
      enabled: true
      partition_by: 'bucket(6, id)'
`;
const taskHistory = '  task_history:\n    captured_output: truncated\n';
const clusterManifest = (state: string) => `version: v2\nkind: Spicepod\nname: cluster\nruntime:\n${taskHistory}  scheduler:\n    state_location: ${state}\n    partition_assignment_interval: 2s\n${datasets}`;
const singleManifest = `version: v2\nkind: Spicepod\nname: single\nruntime:\n${taskHistory}${datasets}`;

/** 3000 rows with NULLs in groups and values, negative and large numbers, every avg() finish. */
const DATA_SQL = `SELECT
  i::BIGINT AS id,
  CASE WHEN i % 10 = 0 THEN NULL WHEN i IN (5, 7) THEN 'rare' ELSE ['x', 'y', 'z'][1 + i % 3] END AS grp,
  CASE WHEN i % 7 = 0 THEN NULL ELSE ((i * 37) % 1000 - 300)::INTEGER END AS n,
  CASE WHEN i % 11 = 0 THEN NULL ELSE (((i * 7919) % 100000) / 100)::DECIMAL(12, 2) END AS price,
  ((i % 1000) / 100)::DECIMAL(4, 2) AS small,
  ((i % 500) - 250)::SMALLINT AS si,
  (i * 3074457345618258)::BIGINT AS big,
  (i % 13) / 4 AS ratio,
  i % 3 = 0 AS flag,
  TIMESTAMP '2023-12-31 20:00:00' + INTERVAL (i) MINUTE AS ts
FROM range(1, 3001) t(i)`;

/** [expected pushdown, SQL]: answered by the executors; the scheduler only merges. */
const PUSHED: Array<['whole' | 'aggregate' | 'top-k', string]> = [
  ['aggregate', 'SELECT grp, count(*), count(n), sum(n), min(n), max(n), avg(n), sum(price), avg(price), avg(small), avg(si), sum(big), avg(big), avg(ratio), min(ts), max(grp) FROM metrics GROUP BY grp ORDER BY grp NULLS FIRST'],
  ['aggregate', 'SELECT count(*) AS rows, sum(n) AS total, avg(price) AS mean, min(price) AS lowest, max(ts) AS latest FROM metrics WHERE n > 100000'],
  ['aggregate', 'SELECT grp, count(*) AS c, sum(price) AS revenue FROM metrics WHERE flag GROUP BY grp HAVING count(*) > 10 AND sum(price) IS NOT NULL ORDER BY c DESC, grp'],
  ['aggregate', 'SELECT upper(grp) AS g, sum(price) / count(*) AS mean, avg(ratio) * 2 AS doubled FROM metrics WHERE grp IS NOT NULL GROUP BY grp ORDER BY 2 DESC LIMIT 2'],
  ['aggregate', 'SELECT flag, year(ts) AS y, count(n) AS counted FROM metrics GROUP BY flag, year(ts) ORDER BY flag, y'],
  ['aggregate', 'SELECT count(*) FROM metrics'],
  // Plain groups and count / sum / min / max: merged in JS (arrow-merge.ts), NULL groups, HUGEINT sums beyond 64 bits.
  ['aggregate', 'SELECT grp, count(*) AS c, count(n), sum(n), sum(price) AS revenue, min(n), max(price), min(grp) AS first_grp, max(ts), min(flag) FROM metrics GROUP BY grp ORDER BY grp DESC NULLS FIRST'],
  ['aggregate', 'SELECT flag, grp, sum(big) AS total, min(si) AS least FROM metrics GROUP BY flag, grp ORDER BY total DESC, 2 NULLS LAST, flag LIMIT 4 OFFSET 1'],
  ['aggregate', 'SELECT sum(n) AS s, min(grp) AS g, max(id) AS m, count(*) AS c FROM metrics WHERE n > 100000'],
  ['aggregate', 'SELECT max(id), grp FROM metrics GROUP BY grp ORDER BY 1 LIMIT 2'],
  // count(DISTINCT x): the legs send each distinct x once per group; NULL x not counted; no rows → 0.
  ['aggregate', 'SELECT grp, count(DISTINCT n) AS distinct_n, count(*) AS c, count(n) AS counted, sum(price) AS revenue, avg(n) AS mean FROM metrics GROUP BY grp ORDER BY grp NULLS FIRST'],
  ['aggregate', 'SELECT count(DISTINCT grp) AS groups, count(*) AS c, sum(n) AS total, min(ts) AS first FROM metrics'],
  ['aggregate', 'SELECT count(DISTINCT n) AS d, count(*) AS c, sum(n) AS s FROM metrics WHERE n > 100000'],
  ['aggregate', 'SELECT flag, count(DISTINCT grp) AS g FROM metrics GROUP BY flag HAVING count(DISTINCT grp) > 1 ORDER BY flag'],
  ['top-k', 'SELECT id, price FROM metrics WHERE n IS NOT NULL ORDER BY price DESC NULLS LAST, id LIMIT 7 OFFSET 2'],
  ['top-k', 'SELECT id * 2 AS doubled, grp FROM metrics ORDER BY doubled DESC LIMIT 5'],
  ['top-k', "SELECT * FROM metrics WHERE grp = 'x' ORDER BY ts, id LIMIT 3"],
  ['top-k', 'SELECT grp, id FROM metrics ORDER BY grp DESC NULLS FIRST, id DESC LIMIT 4'],
  ['top-k', 'SELECT grp AS g, n, metrics.price FROM metrics ORDER BY 2 NULLS FIRST, g, id LIMIT 6 OFFSET 1'],
  ['whole', 'SELECT * FROM metrics WHERE id = 42'],
  ['whole', 'SELECT grp, count(DISTINCT n) AS distinct_n, median(price) AS middle FROM metrics WHERE id = 1234 GROUP BY grp'],
];

/**
 * Splits the scheduler merges in JS, not with its engine: aggregates without avg, HAVING or
 * expressions over aggregates (and with a row to merge: a count(DISTINCT) over no rows is the
 * engine's); top-k over plain columns.
 */
const MERGED_IN_JS = new Set([
  'SELECT flag, year(ts) AS y, count(n) AS counted FROM metrics GROUP BY flag, year(ts) ORDER BY flag, y',
  'SELECT count(*) FROM metrics',
  ...PUSHED.slice(6, 10).map(([, text]) => text),
  'SELECT count(DISTINCT grp) AS groups, count(*) AS c, sum(n) AS total, min(ts) AS first FROM metrics',
  // Top-k over plain columns: the first rows of the legs' rows, sorted in JS.
  ...PUSHED.filter(([mode, text]) => mode === 'top-k' && !text.includes('id * 2')).map(([, text]) => text),
]);

/** Not pushed (not provably safe to split): the scheduler's engine runs them over the fetched rows. */
const FALLBACK = [
  'SELECT count(DISTINCT grp) AS groups, median(n) AS middle FROM metrics',
  'SELECT grp, sum(n) FILTER (WHERE flag) AS flagged FROM metrics GROUP BY grp ORDER BY grp NULLS LAST',
  'SELECT id, n FROM metrics WHERE n > (SELECT avg(n) FROM metrics) ORDER BY id LIMIT 5',
];

/** Runs a Python script with `input` on stdin; asynchronously, so the daemons' logs keep being read meanwhile. */
function python(args: string[], input: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('python3', args, { cwd: repositoryRoot, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input);
  });
}

async function sql(daemon: Daemon, text: string): Promise<{ status: number; body: string; cache: string | null }> {
  const response = await fetch(`${daemon.baseUrl}/v1/sql`, { method: 'POST', body: text });
  return { status: response.status, body: await response.text(), cache: response.headers.get('results-cache-status') };
}

/** The query's scan on the scheduler, as it logged it: the executors asked and how the query was pushed. */
async function scanOf(scheduler: Daemon, run: () => Promise<unknown>): Promise<{ line: string; pushdown: string | undefined; legs: number[]; mergedBy: string | undefined; declined?: string }> {
  const before = scheduler.output().length;
  await run();
  const line = (await waitFor(async () => /cluster scan dataset=metrics [^\n]*/.exec(scheduler.output().slice(before)), (match) => match !== null, 'the scan was logged'))![0];
  // A pushed-down answer logs which merge ran once it was read.
  const done = /pushdown=none/.test(line) || !/pushdown=/.test(line) ? null : await waitFor(async () => /cluster pushdown done dataset=metrics [^\n]*merged_by=(\S+)/.exec(scheduler.output().slice(before)), (match) => match !== null, 'the pushdown was logged');
  await new Promise((resolve) => setTimeout(resolve, 50));
  const legs = [...scheduler.output().slice(before).matchAll(/cluster leg dataset=metrics executor=\S+ rows=(\d+)/g)].map((match) => Number(match[1]));
  const declined = /cluster merge by the engine [^\n]*/.exec(scheduler.output().slice(before))?.[0];
  return { line, pushdown: /pushdown=(\S+)/.exec(line)?.[1], legs, mergedBy: done?.[1], ...(declined ? { declined } : {}) };
}

function schemaText(table: { schema: { fields: Array<{ name: string; type: unknown; nullable: boolean }> } }): string[] {
  return table.schema.fields.map((field) => `${field.name}: ${String(field.type)}`);
}

test.serial('a scheduler pushes aggregates, top-k and single-executor queries into its executors and answers exactly as one node', async (t) => {
  const stateDirectory = mkdtempSync(path.join(os.tmpdir(), 'quarry-cluster-state-'));
  const clusterDirectory = writeManifestDirectory({ manifest: clusterManifest(`${pathToFileURL(stateDirectory).href}/`), files: { 'data/.keep': '' } });
  const singleDirectory = writeManifestDirectory({ manifest: singleManifest, files: { 'data/.keep': '' } });
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  for (const directory of [clusterDirectory, singleDirectory]) await connection.run(`COPY (${DATA_SQL}) TO '${path.join(directory, 'data/metrics.parquet')}' (FORMAT parquet)`);
  connection.closeSync();
  instance.closeSync();
  const processes: Daemon[] = [];
  const clients: FlightSqlClient[] = [];
  try {
    const single = await startDaemon([singleDirectory]);
    processes.push(single);
    const started = await spawnScheduler([clusterDirectory, '--role', 'scheduler', '--node-bind-address', '127.0.0.1:0', '--allow-insecure-connections', '-v']);
    processes.push(started.daemon);
    const executors: Daemon[] = [];
    for (const name of ['executor-a', 'executor-b', 'executor-c']) {
      const executor = await startDaemon(['--scheduler-address', `grpc://${started.nodeEndpoint}`, '--node-advertise-address', name, '--allow-insecure-connections']);
      executors.push(executor);
      processes.push(executor);
    }
    const scheduler = await started.http();
    const state = new ClusterState(new FileObjectStore(stateDirectory));
    await waitFor(() => state.read(), (document) => ownedPartitionCounts(document).size === 3 && Object.values(document.datasets['metrics']?.partitions ?? {}).every((partition) => partition.owner !== null), 'every partition owned, all 3 executors used');
    // Executors reload their shares after assignment: wait until the cluster holds every row once.
    await waitFor(() => sql(scheduler, 'SELECT count(*) AS n, sum(id) AS s FROM metrics WHERE id > 0'), (answer) => answer.body === '[{"n":3000,"s":4501500}]', 'the cluster holds every row once', 60_000);

    const singleFlight = FlightSqlClient.connect({ endpoint: await flightEndpointOf(single) });
    const schedulerFlight = FlightSqlClient.connect({ endpoint: await flightEndpointOf(scheduler) });
    clients.push(singleFlight, schedulerFlight);

    for (const [mode, text] of PUSHED) {
      const expected = await sql(single, text);
      let answer: Awaited<ReturnType<typeof sql>> | undefined;
      const scan = await scanOf(scheduler, async () => (answer = await sql(scheduler, text)));
      t.is(answer!.status, 200, `${text}: ${answer!.body}`);
      t.is(answer!.body, expected.body, text);
      t.is(scan.pushdown, mode, `${text}: ${scan.line}`);
      if (mode !== 'whole') t.is(scan.mergedBy, MERGED_IN_JS.has(text) ? 'arrow' : 'engine', `the merge of ${text}: ${scan.declined ?? ''}`);
      // Column names and Arrow types, over Flight SQL.
      const [mine, theirs] = await Promise.all([schedulerFlight.query(text), singleFlight.query(text)]);
      t.deepEqual(schemaText(mine.table), schemaText(theirs.table), `types of ${text}`);
    }

    // The answers merged in JS read by pyarrow (Arrow C++ Flight), not only by our client: the
    // same tables as one node's, schema with field metadata and values.
    if (await pythonClientsFor(t)) {
      const pushedDown = () => scheduler.output().match(/cluster pushdown done dataset=metrics/g)?.length ?? 0;
      const pushedBefore = pushedDown();
      const compared = await python(['test/cluster/python/flight_tables_equal.py', await flightEndpointOf(scheduler), await flightEndpointOf(single)], JSON.stringify([...MERGED_IN_JS]));
      t.is(compared.status, 0, compared.stderr);
      const outcomes = compared.stdout.trim().split('\n').map((line) => JSON.parse(line) as { query: string; equal: boolean; rows: number; left: string; right: string });
      t.is(outcomes.length, MERGED_IN_JS.size);
      for (const outcome of outcomes) t.true(outcome.equal && outcome.rows > 0, `pyarrow: ${outcome.query}: ${outcome.left} / ${outcome.right}`);
      // Their log lines read before the next scans are counted.
      await waitFor(async () => pushedDown(), (count) => count >= pushedBefore + MERGED_IN_JS.size, 'the scheduler logged the pyarrow queries');
    }

    // The pushdown happened: each executor returned one row per group, not its rows.
    const grouped = await scanOf(scheduler, () => sql(scheduler, 'SELECT grp, sum(n) AS total FROM metrics GROUP BY grp ORDER BY grp'));
    t.is(grouped.pushdown, 'aggregate');
    t.is(grouped.legs.length, 3);
    t.true(grouped.legs.every((rows) => rows >= 1 && rows <= 5), `legs returned ${grouped.legs.join(', ')} rows (5 groups at most)`);
    // ... and the executors ran partial aggregates (their own task history says so).
    for (const executor of executors) {
      const history = await waitFor(
        async () => JSON.parse((await sql(executor, "SELECT input, captured_output FROM runtime.task_history WHERE input LIKE 'SELECT grp AS quarry_g0, sum(n) AS quarry_a0 FROM%'")).body) as Array<{ input: string; captured_output: string }>,
        (rows) => rows.length > 0,
        'the leg is in the executor\'s task history',
        10_000,
      );
      // The leg asks for every partition the executor owns: an exact scan, with no partition predicate.
      t.regex(history[0]!.input, /^SELECT grp AS quarry_g0, sum\(n\) AS quarry_a0 FROM metrics WHERE \(TRUE\) GROUP BY grp$/);
      t.true((JSON.parse(history[0]!.captured_output) as unknown[]).length <= 5);
    }
    // An exact scan (no partition predicate) is served only for exactly what the executor holds.
    const document = await state.read();
    const mine = Object.entries(document.datasets['metrics']!.partitions).filter(([, partition]) => partition.owner === 'executor-a').map(([id]) => id);
    const executorA = FlightSqlClient.connect({ endpoint: document.members['executor-a']!.address });
    clients.push(executorA);
    const exactly = (partitions: string[]) => ({ 'x-quarry-cluster-partitions': JSON.stringify({ dataset: 'metrics', partitions, exact: true }) });
    const served = await executorA.query('SELECT count(*) AS n FROM metrics', exactly(mine));
    const predicate = mine.map((id) => (JSON.parse(id) as number[])[0]).join(', ');
    t.is(JSON.parse((await sql(single, `SELECT count(*) AS n FROM metrics WHERE CAST(hash(id) % 6 AS INTEGER) IN (${predicate})`)).body)[0].n, Number(served.table.get(0)!['n']));
    const refused = await executorA.query('SELECT count(*) AS n FROM metrics', exactly(mine.slice(1))).then(() => undefined, (error: Error & { metadata?: { get(key: string): unknown[] } }) => error);
    t.is(refused?.metadata?.get('x-quarry-error-code')[0], 'CLUSTER_SHARE_CHANGING', 'a subset of its share needs the predicate');

    // A scan without pushdown returns the executors' rows.
    const fetched = await scanOf(scheduler, () => sql(scheduler, FALLBACK[0]!));
    t.is(fetched.pushdown, undefined);
    t.is(fetched.legs.reduce((sum, rows) => sum + rows, 0), 3000);

    // Pruning on the partition key still applies: one partition, one executor.
    const lookup = await scanOf(scheduler, () => sql(scheduler, 'SELECT sum(price) AS p FROM metrics WHERE id IN (42)'));
    t.regex(lookup.line, /executors=executor-[abc] partitions=1 of=6 pushdown=whole/);

    // Not provably safe to split: the normal path, same answers.
    for (const text of FALLBACK) {
      const [answer, expected] = [await sql(scheduler, text), await sql(single, text)];
      t.is(answer.status, 200, text);
      t.is(answer.body, expected.body, text);
    }

    // A union of the executors' answers: the same rows (in the executors' order).
    const union = 'SELECT id, upper(grp) AS g FROM metrics WHERE n BETWEEN 0 AND 20';
    const unionScan = await scanOf(scheduler, async () => {
      const [answer, expected] = [await sql(scheduler, union), await sql(single, union)];
      const sorted = (body: string) => (JSON.parse(body) as Array<{ id: number }>).sort((a, b) => a.id - b.id);
      t.deepEqual(sorted(answer.body), sorted(expected.body));
      t.true(sorted(answer.body).length > 10);
    });
    t.is(unionScan.pushdown, 'union');

    // A pushed-down answer goes through the results cache and task history as any query.
    const cached = 'SELECT grp, avg(price) AS mean FROM metrics GROUP BY grp ORDER BY grp';
    const first = await scanOf(scheduler, async () => t.is((await sql(scheduler, cached)).cache, 'MISS'));
    t.is(first.pushdown, 'aggregate');
    // (Entries live item_ttl, 1s by default: the second run follows at once.)
    t.is((await sql(scheduler, cached)).cache, 'HIT', 'the second run of a pushed-down query is a cache hit');
    const recorded = await waitFor(
      async () => JSON.parse((await sql(scheduler, `SELECT count(*) AS n FROM runtime.task_history WHERE input = '${cached.replaceAll("'", "''")}'`)).body) as Array<{ n: number }>,
      (rows) => rows[0]!.n >= 2,
      'the scheduler\'s task history has the query',
      10_000,
    );
    t.true(recorded[0]!.n >= 2);
  } finally {
    for (const client of clients) client.close();
    await stopAll(processes);
    for (const directory of [stateDirectory, clusterDirectory, singleDirectory]) rmSync(directory, { recursive: true, force: true });
  }
});
