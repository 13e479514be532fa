import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { StatementType } from '../../core/engine/duckdb-api.js';
import { isRegisteredErrorCode } from '../../core/errors/codes.js';
import { generatedFlightSqlModules, pythonClients, runPythonScript } from '../helpers/python-clients.js';
import { withRuntime, type TestRuntime } from '../helpers/runtime.js';
import { ACCESS_FILES, KEYS, accessManifest } from './access-fixtures.js';

/**
 * The sandbox, probed by brute force: every function the running engine lists in
 * duckdb_functions() (so a new engine version is probed the same way) with a few argument
 * shapes, and a statement of every type the parser knows, sent by a read-only key over HTTP
 * (Python's http.client) and Flight SQL (grpcio). Whatever the answer, the runtime lives, the
 * datasets, settings and files are as before, and every refusal or failure is a 400/403 (gRPC
 * INVALID_ARGUMENT/PERMISSION_DENIED/...) with a registered error code.
 */

interface EngineFunction {
  name: string;
  type: string;
  types: string[];
}

interface Answer {
  index: number;
  http: [number, string];
  flight: [string, string];
}

/** One statement of each type the parser knows, and what a read-only caller gets: [HTTP status, code]. */
const STATEMENT_SAMPLES: Record<string, Array<[string, number, string]>> = {
  SELECT: [['SELECT count(*) FROM events', 200, ''], ['SUMMARIZE events', 200, ''], ['DESCRIBE events', 200, ''], ['SHOW TABLES', 200, '']],
  INSERT: [["INSERT INTO events VALUES (9, 'nine')", 403, 'WRITE_NOT_ALLOWED']],
  UPDATE: [["UPDATE events SET label = 'x'", 403, 'WRITE_NOT_ALLOWED'], ["UPDATE plain SET label = 'x'", 403, 'WRITE_NOT_ALLOWED']],
  EXPLAIN: [['EXPLAIN SELECT 1', 200, ''], ['EXPLAIN ANALYZE DROP TABLE events', 403, 'WRITE_NOT_ALLOWED'], ['EXPLAIN SET threads = 1', 400, 'STATEMENT_NOT_ALLOWED']],
  DELETE: [['DELETE FROM events', 403, 'WRITE_NOT_ALLOWED'], ['DELETE FROM plain', 403, 'WRITE_NOT_ALLOWED'], ['TRUNCATE events', 403, 'WRITE_NOT_ALLOWED']],
  PREPARE: [['PREPARE p AS SELECT 1', 400, 'STATEMENT_NOT_ALLOWED'], ['DEALLOCATE p', 400, 'STATEMENT_NOT_ALLOWED']],
  CREATE: [['CREATE TABLE copied AS SELECT * FROM events', 403, 'WRITE_NOT_ALLOWED'], ["CREATE SECRET s (TYPE s3, KEY_ID 'a', SECRET 'b')", 400, 'STATEMENT_NOT_ALLOWED'], ['CREATE SEQUENCE s', 403, 'WRITE_NOT_ALLOWED']],
  EXECUTE: [['EXECUTE p', 400, 'STATEMENT_NOT_ALLOWED']],
  ALTER: [['ALTER TABLE events RENAME TO renamed', 403, 'WRITE_NOT_ALLOWED'], ["COMMENT ON TABLE events IS 'x'", 403, 'WRITE_NOT_ALLOWED']],
  TRANSACTION: [['BEGIN', 400, 'STATEMENT_NOT_ALLOWED'], ['COMMIT', 400, 'STATEMENT_NOT_ALLOWED'], ['ABORT', 400, 'STATEMENT_NOT_ALLOWED']],
  COPY: [["COPY events TO 'stolen.csv'", 403, 'WRITE_NOT_ALLOWED'], ["COPY events FROM 'data/events.csv'", 403, 'WRITE_NOT_ALLOWED']],
  ANALYZE: [['ANALYZE', 400, 'STATEMENT_NOT_ALLOWED']],
  VARIABLE_SET: [['SET VARIABLE quarry_caller = \'*\'', 400, 'STATEMENT_NOT_ALLOWED'], ['RESET VARIABLE quarry_caller', 400, 'STATEMENT_NOT_ALLOWED']],
  CREATE_FUNC: [['CREATE MACRO m() AS 1', 403, 'WRITE_NOT_ALLOWED']],
  DROP: [['DROP TABLE events', 403, 'WRITE_NOT_ALLOWED'], ['DROP SECRET s', 400, 'STATEMENT_NOT_ALLOWED']],
  EXPORT: [["EXPORT DATABASE 'exported'", 400, 'STATEMENT_NOT_ALLOWED'], ["IMPORT DATABASE 'exported'", 400, 'STATEMENT_NOT_ALLOWED']],
  PRAGMA: [['PRAGMA enable_profiling', 400, 'STATEMENT_NOT_ALLOWED'], ["PRAGMA table_info('events')", 400, 'STATEMENT_NOT_ALLOWED']],
  VACUUM: [['VACUUM', 400, 'STATEMENT_NOT_ALLOWED']],
  CALL: [['CALL checkpoint()', 400, 'STATEMENT_NOT_ALLOWED'], ['CHECKPOINT', 400, 'STATEMENT_NOT_ALLOWED'], ['FORCE CHECKPOINT', 400, 'STATEMENT_NOT_ALLOWED']],
  SET: [['SET threads = 1', 400, 'STATEMENT_NOT_ALLOWED'], ['RESET threads', 400, 'STATEMENT_NOT_ALLOWED'], ['USE events_on_disk', 400, 'STATEMENT_NOT_ALLOWED']],
  LOAD: [['LOAD json', 400, 'STATEMENT_NOT_ALLOWED'], ['INSTALL spatial', 400, 'STATEMENT_NOT_ALLOWED']],
  ATTACH: [["ATTACH ':memory:' AS other", 400, 'STATEMENT_NOT_ALLOWED']],
  DETACH: [['DETACH quarry_file_events_on_disk', 400, 'STATEMENT_NOT_ALLOWED']],
  MULTI: [['SELECT 1; DROP TABLE events', 400, 'SQL_MULTIPLE_STATEMENTS']],
  COPY_DATABASE: [['COPY FROM DATABASE memory TO quarry_file_events_on_disk', 403, 'WRITE_NOT_ALLOWED']],
  UPDATE_EXTENSIONS: [['UPDATE EXTENSIONS', 400, 'STATEMENT_NOT_ALLOWED']],
  MERGE_INTO: [['MERGE INTO events USING (SELECT 1 AS id) AS s ON s.id = events.id WHEN MATCHED THEN DELETE', 403, 'WRITE_NOT_ALLOWED']],
};

/** Statement types no SQL text produces: the engine builds them from its relational API, or never. */
const NOT_FROM_SQL = new Set(['INVALID', 'RELATION', 'EXTENSION', 'LOGICAL_PLAN']);

/** Functions that change engine state or reach past the sandbox: none of their calls may succeed. */
const NEVER_SUCCEED = new Set([
  'enable_logging', 'disable_logging', 'truncate_duckdb_logs', 'write_log', 'duckdb_logs', 'duckdb_log_contexts',
  'checkpoint', 'force_checkpoint', 'query', 'query_table', 'json_execute_serialized_sql', 'arrow_scan', 'arrow_scan_dumb',
  'duckdb_secrets', 'which_secret', 'enable_profiling', 'disable_profiling', 'enable_peg_parser', 'disable_peg_parser',
  'duckdb_temporary_files', 'nextval', 'setseed',
]);

const GENERIC_TYPES = /^(?:ANY|T|K|V|TABLE|LAMBDA|POINTER|INVALID|"NULL"|NULL)$|[<>]/;

const quoteName = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

function typedNull(type: string): string {
  return GENERIC_TYPES.test(type) || !/^[A-Z][A-Z0-9_ ]*(?:\(\d+(?:,\s*\d+)?\))?(?:\[\])?$/.test(type) ? 'NULL' : `NULL::${type}`;
}

function call(fn: Pick<EngineFunction, 'name' | 'type'>, args: string): string {
  if (fn.type === 'table' || fn.type === 'table_macro') return `SELECT * FROM ${quoteName(fn.name)}(${args}) LIMIT 3`;
  if (fn.type === 'pragma') return `PRAGMA ${quoteName(fn.name)}${args ? `(${args})` : ''}`;
  return `SELECT ${quoteName(fn.name)}(${args})`;
}

interface Probe {
  sql: string;
  /** The function called, for the never-succeed check. */
  fn?: string;
  /** A path the caller must not read (ACCESS_DENIED expected from a file reader). */
  forbiddenPath?: boolean;
}

function probesFor(functions: EngineFunction[], paths: { forbidden: string[]; allowed: string[] }): Probe[] {
  const probes: Probe[] = [];
  const byName = new Map<string, EngineFunction[]>();
  for (const fn of functions) byName.set(`${fn.name}\u0000${fn.type}`, [...(byName.get(`${fn.name}\u0000${fn.type}`) ?? []), fn]);
  for (const overloads of byName.values()) {
    const first = overloads[0]!;
    const seen = new Set<string>();
    probes.push({ sql: call(first, ''), fn: first.name });
    for (const overload of overloads) {
      const args = overload.types.map(typedNull).join(', ');
      if (args === '' || seen.has(args) || seen.size >= 2) continue;
      seen.add(args);
      probes.push({ sql: call(overload, args), fn: first.name });
    }
    if (first.type === 'table' || first.type === 'table_macro') probes.push({ sql: `SELECT * FROM ${quoteName(first.name)} LIMIT 3`, fn: first.name });
    const takesText = overloads.some((overload) => /^(?:VARCHAR|ANY|VARCHAR\[\])$/.test(overload.types[0] ?? ''));
    if (!takesText) continue;
    for (const forbidden of paths.forbidden) probes.push({ sql: call(first, literal(forbidden)), fn: first.name, forbiddenPath: true });
    for (const allowed of paths.allowed) probes.push({ sql: call(first, literal(allowed)), fn: first.name });
  }
  return probes;
}

async function rows<T>(context: TestRuntime, sql: string): Promise<T[]> {
  const response = await context.sql(sql, { headers: { 'x-api-key': KEYS.reader } });
  if (response.status !== 200) throw new Error(`${sql}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T[];
}

/** What must not change: the datasets' rows, the engine's settings, the files in the runtime's directories. */
async function observable(context: TestRuntime, spill: string): Promise<Record<string, unknown>> {
  const files = (directory: string) => readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const file = path.join(entry.parentPath, entry.name);
      return `${path.relative(directory, file)} ${statSync(file).size}`;
    })
    .sort();
  return {
    events: await rows(context, 'SELECT * FROM events ORDER BY ALL'),
    onDisk: await rows(context, 'SELECT * FROM events_on_disk ORDER BY ALL'),
    settings: await rows(context, 'SELECT name, value FROM duckdb_settings() ORDER BY name'),
    files: files(context.directory),
    spill: files(spill),
  };
}

test('every engine function and statement type, called by a read-only key over HTTP and Flight: the runtime survives and nothing changes', async (t) => {
  const clients = await pythonClients();
  if (!clients.available) {
    if (process.env['CI'] === 'true') t.fail(clients.reason);
    else t.log(`skipped: ${clients.reason}`);
    if (!clients.available) return t.pass();
  }
  const spill = mkdtempSync(path.join(os.tmpdir(), 'quarry-fuzz-spill-'));
  writeFileSync(path.join(spill, 'other-query.csv'), 'another caller\'s spilled rows\n');
  const manifest = accessManifest({ runtime: `\n  query:\n    temp_directory: ${spill}` })
    .replace('runtime:', '  - from: file:data/events.csv\n    name: events_on_disk\n    acceleration:\n      enabled: true\n      mode: file\n  - from: file:data/events.csv\n    name: plain\nruntime:');
  try {
    await withRuntime(t, { manifest, files: ACCESS_FILES, flight: true }, async (context) => {
      const directory = context.directory;
      const paths = {
        forbidden: ['/etc/hostname', `${spill}/*`, `${spill}/other-query.csv`, `${directory}/.quarry/acceleration/events_on_disk.duckdb`, '.quarry/acceleration/*', `${directory}/data/../quarry.yaml`],
        allowed: [`${directory}/data/events.csv`],
      };
      const functions = await rows<EngineFunction>(context, 'SELECT function_name AS name, function_type AS type, parameter_types AS types FROM duckdb_functions() ORDER BY ALL');
      t.true(functions.length > 500, `the engine lists its functions (${functions.length})`);
      const probes = probesFor(functions, paths);

      // Every statement type the parser knows has a sample (a new engine version adds one: add its sample).
      const typeNames = Object.keys(StatementType).filter((key) => Number.isNaN(Number(key)));
      for (const name of typeNames) t.true(NOT_FROM_SQL.has(name) || STATEMENT_SAMPLES[name] !== undefined, `a sample statement of type ${name}`);
      const samples = Object.values(STATEMENT_SAMPLES).flat();
      const statements = [...samples.map(([sql]) => sql), ...probes.map((probe) => probe.sql)];

      const before = await observable(context, spill);
      const list = path.join(directory, 'statements.json');
      writeFileSync(list, JSON.stringify(statements));
      const run = await runPythonScript('sandbox_fuzz.py', [
        '--generated', generatedFlightSqlModules(), '--http', context.runtime.httpEndpoint, '--flight', context.runtime.flightEndpoint!,
        '--key', KEYS.reader, '--statements', list,
      ], { timeoutMs: 1_200_000 });
      rmSync(list);
      const answers = run.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Answer);
      t.is(answers.length, statements.length, `every statement answered (python exited ${run.code}: ${run.stderr.slice(-2000)})`);

      const problems: string[] = [];
      const refusedOrFailed = new Map<string, number>();
      for (const answer of answers) {
        const sql = statements[answer.index]!;
        const [status, code] = answer.http;
        const [grpcStatus, flightCode] = answer.flight;
        if (status !== 200) refusedOrFailed.set(code, (refusedOrFailed.get(code) ?? 0) + 1);
        if (status !== 200 && (![400, 403, 404, 409, 413, 422, 429].includes(status) || !isRegisteredErrorCode(code))) problems.push(`HTTP ${status} ${code}: ${sql}`);
        if (grpcStatus !== 'OK' && (['UNKNOWN', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS'].includes(grpcStatus) || !isRegisteredErrorCode(flightCode))) problems.push(`Flight ${grpcStatus} ${flightCode}: ${sql}`);
        if ((status === 200) !== (grpcStatus === 'OK') && !sql.startsWith('PRAGMA')) problems.push(`the doors disagree (HTTP ${status} ${code}, Flight ${grpcStatus} ${flightCode}): ${sql}`);
        if (answer.index < samples.length) {
          const [, expectedStatus, expectedCode] = samples[answer.index]!;
          if (status !== expectedStatus || code !== expectedCode) problems.push(`expected ${expectedStatus} ${expectedCode}, got ${status} ${code}: ${sql}`);
          continue;
        }
        const probe = probes[answer.index - samples.length]!;
        if (probe.fn !== undefined && NEVER_SUCCEED.has(probe.fn) && (status === 200 || grpcStatus === 'OK')) problems.push(`a refused function ran (HTTP ${status}, Flight ${grpcStatus}): ${sql}`);
        if (probe.forbiddenPath && (status === 200 || grpcStatus === 'OK') && /read|glob|parquet|sniff|scan/.test(probe.fn ?? '')) problems.push(`a file outside the datasets was read: ${sql}`);
      }
      t.log(`${statements.length} statements per door; answers other than 200 by code: ${JSON.stringify(Object.fromEntries(refusedOrFailed))}`);
      t.deepEqual(problems, [], problems.slice(0, 40).join('\n'));

      t.deepEqual(await rows(context, 'SELECT 42 AS answer'), [{ answer: 42 }], 'the runtime still answers');
      t.deepEqual(await observable(context, spill), before, 'the datasets, the engine settings and the files are as before');
    });
  } finally {
    rmSync(spill, { recursive: true, force: true });
  }
});
