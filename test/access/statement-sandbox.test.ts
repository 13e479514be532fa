import test from 'ava';
import { status } from '@grpc/grpc-js';
import { FlightSqlClient } from '../../core/flight/client/flight-sql-client.js';
import { withRuntime, type TestRuntime } from '../helpers/runtime.js';
import { ACCESS_FILES, KEYS, accessManifest } from './access-fixtures.js';

/**
 * What a statement does decides whether it runs, not its first keyword: EXPLAIN ANALYZE runs
 * what it wraps, some SELECTs call functions that change engine state (or abort the
 * process), and a NUL byte would hide the rest of the text from the engine.
 */

const setup = { manifest: accessManifest(), files: ACCESS_FILES, flight: true };

async function refusal(context: TestRuntime, sql: string, key: string): Promise<{ status: number; code: string; message: string }> {
  const response = await context.sql(sql, { headers: { 'x-api-key': key } });
  const body = (await response.json()) as { error?: { code: string; message: string } };
  return { status: response.status, code: body.error?.code ?? 'none', message: (body.error?.message ?? JSON.stringify(body)).slice(0, 300) };
}

async function eventCount(context: TestRuntime): Promise<number> {
  const response = await context.sql('SELECT count(*) AS n FROM events', { headers: { 'x-api-key': KEYS.reader } });
  return ((await response.json()) as Array<{ n: number }>)[0]!.n;
}

test('EXPLAIN ANALYZE of a write is that write: refused for a read-only key, and for any key but an INSERT', async (t) => {
  await withRuntime(t, setup, async (context) => {
    const writes = [
      'EXPLAIN ANALYZE DROP TABLE events',
      "EXPLAIN ANALYZE INSERT INTO events VALUES (3, 'three')",
      'EXPLAIN ANALYZE DELETE FROM events',
      "EXPLAIN ANALYZE UPDATE events SET label = 'x'",
      'EXPLAIN ANALYZE CREATE TABLE copied AS SELECT * FROM events',
      "EXPLAIN ANALYZE COPY events TO 'stolen.csv'",
      '/* comment */ explain analyze DROP TABLE events',
      '-- a comment\nEXPLAIN (FORMAT json) DROP TABLE events',
      'EXPLAIN DROP TABLE events',
    ];
    // COPY ... TO a file is refused by the engine's own file permissions first (ACCESS_DENIED).
    const expected = (sql: string) => (sql.includes('COPY') ? ['WRITE_NOT_ALLOWED', 'ACCESS_DENIED'] : ['WRITE_NOT_ALLOWED']);
    for (const sql of writes) {
      const refused = await refusal(context, sql, KEYS.reader);
      t.is(refused.status, 403, `${sql}: ${refused.message}`);
      t.true(expected(sql).includes(refused.code), `${sql}: ${refused.code}`);
    }
    for (const sql of writes.filter((text) => !text.includes('INSERT'))) {
      const refused = await refusal(context, sql, KEYS.writer);
      t.true(expected(sql).includes(refused.code), `writer: ${sql}: ${refused.code} ${refused.message}`);
    }
    t.is(await eventCount(context), 2, 'the dataset is untouched');
    // Reads still explain.
    for (const sql of ['EXPLAIN SELECT * FROM events', 'EXPLAIN ANALYZE SELECT count(*) FROM events']) {
      const response = await context.sql(sql, { headers: { 'x-api-key': KEYS.reader } });
      t.is(response.status, 200, sql);
    }
  });
});

test('functions that change engine state are refused, and the runtime lives on', async (t) => {
  await withRuntime(t, setup, async (context) => {
    const calls = [
      "SELECT * FROM enable_logging(level='debug', storage='file', storage_path='logs')",
      'SELECT * FROM enable_logging()',
      'SELECT * FROM disable_logging()',
      'SELECT * FROM truncate_duckdb_logs()',
      'SELECT * FROM checkpoint()',
      'SELECT * FROM force_checkpoint()',
      'SELECT * FROM "enable_logging"()',
      "SELECT 1 UNION ALL SELECT count(*) FROM query('SELECT 1')",
      "WITH x AS (SELECT * FROM enable_logging(level='debug')) SELECT * FROM x",
      "EXPLAIN ANALYZE SELECT * FROM enable_logging(level='debug', storage='file', storage_path='logs')",
    ];
    for (const key of [KEYS.reader, KEYS.writer]) {
      for (const sql of calls) {
        const refused = await refusal(context, sql, key);
        t.is(refused.status, 400, `${sql}: ${refused.message}`);
        t.is(refused.code, 'STATEMENT_NOT_ALLOWED', sql);
        t.regex(refused.message, /\(\) is not allowed in user SQL/, sql);
      }
    }
    const alive = await context.sql('SELECT 42 AS answer', { headers: { 'x-api-key': KEYS.reader } });
    t.deepEqual(await alive.json(), [{ answer: 42 }], 'the runtime still answers');
    // Refused the second time too (the refusal is remembered with the text's classification).
    t.is((await refusal(context, calls[0]!, KEYS.reader)).code, 'STATEMENT_NOT_ALLOWED');
  });
});

test('statements that are never user SQL (INSTALL, LOAD, ATTACH, SET) are STATEMENT_NOT_ALLOWED naming the statement, whatever the key', async (t) => {
  await withRuntime(t, setup, async (context) => {
    const cases: Array<[string, RegExp]> = [
      ['INSTALL spatial', /^INSTALL statements are not accepted/],
      ['FORCE INSTALL spatial', /^INSTALL statements are not accepted/],
      ['LOAD spatial', /^LOAD statements are not accepted/],
      ["ATTACH 'other.duckdb' AS other", /^ATTACH statements are not accepted/],
      ['DETACH memory', /^DETACH statements are not accepted/],
      ["SET threads = 1", /^SET statements are not accepted/],
    ];
    for (const key of [KEYS.reader, KEYS.writer]) {
      for (const [sql, message] of cases) {
        const refused = await refusal(context, sql, key);
        t.is(refused.status, 400, `${sql}: ${refused.message}`);
        t.is(refused.code, 'STATEMENT_NOT_ALLOWED', sql);
        t.regex(refused.message, message, sql);
      }
    }
  });
});

test('user SQL reads only the datasets\' files: not the spill directory, not the acceleration databases, not computed paths', async (t) => {
  // A file-mode acceleration beside the writable one; the engine's temp directory is its default, .tmp.
  const manifest = accessManifest().replace('runtime:', '  - from: file:data/events.csv\n    name: events_on_disk\n    acceleration:\n      enabled: true\n      mode: file\nruntime:');
  await withRuntime(t, { ...setup, manifest, files: { ...ACCESS_FILES, 'spill/other-query.csv': 'another caller\'s spilled rows' } }, async (context) => {
    const directory = context.directory;
    const refused = [
      "SELECT * FROM read_blob('.tmp/*')",
      `SELECT * FROM read_blob('${directory}/spill/*')`,
      `SELECT * FROM read_blob('${directory}/.quarry/acceleration/events_on_disk.duckdb')`,
      "SELECT * FROM read_blob('.quarry/acceleration/*')",
      `SELECT * FROM read_text('${directory}/data/../spill/other-query.csv')`,
      `SELECT * FROM read_text('${directory}/spi' || 'll/*')`,
      `SELECT * FROM read_csv(['${directory}/data/events.csv', '${directory}/spill/other-query.csv'])`,
      `SELECT * FROM '${directory}/spill/other-query.csv'`,
      "SELECT * FROM glob('/etc/*')",
      "EXPLAIN ANALYZE SELECT * FROM read_blob('.tmp/*')",
      // A writer may not copy them into a dataset either.
      "INSERT INTO events SELECT 9, content::VARCHAR FROM read_blob('.tmp/*')",
    ];
    for (const sql of refused) {
      const answer = await refusal(context, sql, KEYS.writer);
      t.is(answer.status, 403, `${sql}: ${answer.message}`);
      t.is(answer.code, 'ACCESS_DENIED', sql);
    }
    // The datasets' own files stay readable by path, as before.
    for (const sql of [`SELECT count(*) AS n FROM read_csv('${directory}/data/events.csv')`, `SELECT count(*) AS n FROM '${directory}/data/events.csv'`]) {
      const response = await context.sql(sql, { headers: { 'x-api-key': KEYS.reader } });
      t.is(response.status, 200, `${sql}: ${await response.clone().text()}`);
      t.deepEqual(await response.json(), [{ n: 2 }], sql);
    }
  });
});

test('a NUL byte in the SQL text is SQL_INVALID naming its offset, never a shorter statement', async (t) => {
  await withRuntime(t, setup, async (context) => {
    const refused = await refusal(context, 'SELECT 1\u0000; DROP TABLE events', KEYS.writer);
    t.is(refused.status, 400);
    t.is(refused.code, 'SQL_INVALID');
    t.regex(refused.message, /NUL byte at offset 8/);
    t.is(await eventCount(context), 2);
  });
});

test('over Flight the same statements are refused with the same codes', async (t) => {
  await withRuntime(t, setup, async (context) => {
    const client = FlightSqlClient.connect({ endpoint: `grpc://${context.runtime.flightEndpoint}` });
    try {
      await client.handshake('', KEYS.reader);
      const cases: Array<[string, number, string]> = [
        ['EXPLAIN ANALYZE DROP TABLE events', status.PERMISSION_DENIED, 'WRITE_NOT_ALLOWED'],
        ["SELECT * FROM enable_logging(level='debug', storage='file', storage_path='logs')", status.INVALID_ARGUMENT, 'STATEMENT_NOT_ALLOWED'],
        ['SELECT 1\u0000; DROP TABLE events', status.INVALID_ARGUMENT, 'SQL_INVALID'],
      ];
      for (const [sql, code, quarryCode] of cases) {
        const error = (await client.query(sql).then(() => undefined, (failure: unknown) => failure)) as { code?: number; metadata?: { get(key: string): unknown[] } } | undefined;
        t.is(error?.code, code, sql);
        t.deepEqual(error?.metadata?.get('x-quarry-error-code'), [quarryCode], sql);
      }
      t.is((await client.query('SELECT count(*) AS n FROM events')).table.getChild('n')?.get(0), 2n);
    } finally {
      client.close();
    }
  });
});

test('statements whose binding has effects are refused unprepared: CREATE SECRET leaves the engine able to list its secrets types', async (t) => {
  await withRuntime(t, setup, async (context) => {
    for (const sql of ["CREATE SECRET s (TYPE s3, KEY_ID 'a', SECRET 'b')", "CREATE OR REPLACE PERSISTENT SECRET s (TYPE s3)", 'DROP TEMPORARY SECRET s', "EXPLAIN CREATE SECRET s (TYPE s3)", "EXPORT DATABASE 'exported'", 'PRAGMA enable_profiling', 'CALL checkpoint()']) {
      for (const key of [KEYS.reader, KEYS.writer]) {
        const refused = await refusal(context, sql, key);
        t.is(refused.status, 400, `${sql}: ${refused.message}`);
        t.is(refused.code, 'STATEMENT_NOT_ALLOWED', sql);
      }
    }
    t.regex((await refusal(context, 'PRAGMA table_info(\'events\')', KEYS.reader)).message, /DESCRIBE name or SELECT \* FROM pragma_table_info/);
    // DuckDB broke its secret manager when a refused CREATE SECRET had been bound ("Secret Storage ... already registered").
    const response = await context.sql('SELECT count(*) AS n FROM pragma_table_info(\'events\')', { headers: { 'x-api-key': KEYS.reader } });
    t.deepEqual(await response.json(), [{ n: 2 }]);
  });
});

test('a write the engine cannot bind (DELETE from a view) is still refused as a write, not answered with the binder error', async (t) => {
  const manifest = accessManifest().replace('runtime:', '  - from: file:data/events.csv\n    name: plain\nruntime:');
  await withRuntime(t, { ...setup, manifest }, async (context) => {
    for (const sql of ['DELETE FROM plain', "UPDATE plain SET label = 'x'", 'DELETE FROM no_such_table']) {
      const reader = await refusal(context, sql, KEYS.reader);
      t.is(reader.status, 403, `${sql}: ${reader.message}`);
      t.is(reader.code, 'WRITE_NOT_ALLOWED', sql);
      t.regex(reader.message, /this caller may only read/, sql);
      const writer = await refusal(context, sql, KEYS.writer);
      t.is(writer.code, 'WRITE_NOT_ALLOWED', `writer: ${sql}`);
      t.regex(writer.message, /the only write accepted is INSERT/, sql);
    }
    // An INSERT a writer may make still gets the engine's own complaint.
    const insert = await refusal(context, 'INSERT INTO events VALUES (1, 2, 3)', KEYS.writer);
    t.is(insert.code, 'SQL_INVALID', insert.message);
  });
});

test('the engine\'s advice to INSTALL/LOAD an extension is replaced by the runtime\'s own', async (t) => {
  await withRuntime(t, setup, async (context) => {
    const refused = await refusal(context, 'SELECT ST_Point(1, 2)', KEYS.reader);
    t.is(refused.code, 'SQL_INVALID');
    t.regex(refused.message, /set runtime\.params\.geo: enabled/);
    t.notRegex(refused.message, /INSTALL|LOAD/);
  });
});

test('engine log, secrets and the tables behind caller-scoped views are not readable; engine table functions off the list are refused', async (t) => {
  await withRuntime(t, setup, async (context) => {
    const cases: Array<[string, number, string]> = [
      ['SELECT * FROM duckdb_logs', 403, 'ACCESS_DENIED'],
      ['SELECT * FROM runtime.task_history_rows', 403, 'ACCESS_DENIED'],
      ['SELECT * FROM "RUNTIME"."TASK_HISTORY_SHAPES"', 403, 'ACCESS_DENIED'],
      ['SELECT * FROM duckdb_secrets()', 400, 'STATEMENT_NOT_ALLOWED'],
      ["SELECT * FROM which_secret('s3://bucket/x', 's3')", 400, 'STATEMENT_NOT_ALLOWED'],
      ['SELECT * FROM duckdb_temporary_files()', 400, 'STATEMENT_NOT_ALLOWED'],
      ["SELECT write_log('x')", 400, 'STATEMENT_NOT_ALLOWED'],
      ['SELECT * FROM json_execute_serialized_sql(json_serialize_sql(\'SELECT 1\'))', 400, 'STATEMENT_NOT_ALLOWED'],
      ['SELECT * FROM duckdb_prepared_statements()', 400, 'STATEMENT_NOT_ALLOWED'],
    ];
    for (const [sql, status, code] of cases) {
      const refused = await refusal(context, sql, KEYS.writer);
      t.is(refused.status, status, `${sql}: ${refused.message}`);
      t.is(refused.code, code, sql);
    }
    for (const sql of ['SELECT count(*) > 0 AS ok FROM duckdb_tables()', 'SELECT count(*) > 0 AS ok FROM duckdb_functions()', 'SELECT count(*) = 3 AS ok FROM range(3)']) {
      const response = await context.sql(sql, { headers: { 'x-api-key': KEYS.reader } });
      t.deepEqual(await response.json(), [{ ok: true }], sql);
    }
  });
});
