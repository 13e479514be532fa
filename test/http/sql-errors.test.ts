import test from 'ava';
import { QUICKSTART_MANIFEST, withRuntime } from '../helpers/runtime.js';

const setup = { manifest: QUICKSTART_MANIFEST, withQuickstartData: true };

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string; contentType: string | null }> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, code: body.error.code, message: body.error.message, contentType: response.headers.get('content-type') };
}

test('bad SQL is a 400 with the engine message', async (t) => {
  await withRuntime(t, setup, async ({ sql }) => {
    const error = await errorOf(await sql('SELEC 1'));
    t.is(error.status, 400);
    t.is(error.code, 'SQL_INVALID');
    t.regex(error.message, /^Parser Error: syntax error at or near "SELEC"/);
    t.is(error.contentType, 'application/json; charset=utf-8');
  });
});

test('an unknown table is a 400 TABLE_NOT_FOUND naming the datasets', async (t) => {
  await withRuntime(t, setup, async ({ sql }) => {
    const error = await errorOf(await sql('SELECT * FROM nowhere'));
    t.deepEqual(error, { status: 400, code: 'TABLE_NOT_FOUND', message: 'table "nowhere" does not exist (datasets: orders, customers)', contentType: 'application/json; charset=utf-8' });
  });
});

test('an unknown column is SQL_INVALID', async (t) => {
  await withRuntime(t, setup, async ({ sql }) => {
    const error = await errorOf(await sql('SELECT no_such_column FROM orders'));
    t.is(error.status, 400);
    t.is(error.code, 'SQL_INVALID');
    t.regex(error.message, /^Binder Error: Referenced column "no_such_column" not found/);
  });
});

test('a runtime engine failure is a 400 QUERY_FAILED', async (t) => {
  await withRuntime(t, setup, async ({ sql }) => {
    const error = await errorOf(await sql("SELECT CAST('abc' AS INTEGER)"));
    t.is(error.status, 400);
    t.is(error.code, 'QUERY_FAILED');
    t.regex(error.message, /^Conversion Error: Could not convert string 'abc' to INT32/);
  });
});

test('empty and whitespace bodies are refused', async (t) => {
  await withRuntime(t, setup, async ({ sql }) => {
    t.deepEqual(await errorOf(await sql('')), {
      status: 400,
      code: 'BODY_EMPTY',
      message: 'the request body is empty: send the SQL text, or JSON {"sql": "...", "parameters": [...]} with Content-Type: application/json',
      contentType: 'application/json; charset=utf-8',
    });
    const blank = await errorOf(await sql('   \n'));
    t.is(blank.code, 'SQL_EMPTY');
    t.is(blank.status, 400);
  });
});

test('invalid UTF-8 is a 400', async (t) => {
  await withRuntime(t, setup, async ({ baseUrl }) => {
    const response = await fetch(`${baseUrl}/v1/sql`, { method: 'POST', body: Buffer.from([0x53, 0x45, 0xff, 0xfe]) });
    t.deepEqual(await errorOf(response), {
      status: 400,
      code: 'BODY_INVALID_UTF8',
      message: 'the request body is not valid UTF-8: send the SQL text encoded as UTF-8',
      contentType: 'application/json; charset=utf-8',
    });
  });
});

test('a body over 16 MiB is a 413 and the runtime keeps serving', async (t) => {
  await withRuntime(t, setup, async ({ sql }) => {
    const huge = `SELECT '${'x'.repeat(16 * 1024 * 1024)}'`;
    t.deepEqual(await errorOf(await sql(huge)), {
      status: 413,
      code: 'BODY_TOO_LARGE',
      message: 'the request body is over the 16MiB limit',
      contentType: 'application/json; charset=utf-8',
    });
    t.is((await sql('SELECT 1')).status, 200);
  });
});

test('several statements in one request are refused', async (t) => {
  await withRuntime(t, setup, async ({ sql }) => {
    const error = await errorOf(await sql('SELECT 1; SELECT 2'));
    t.is(error.code, 'SQL_MULTIPLE_STATEMENTS');
    t.is(error.message, 'the SQL text holds 2 statements; send one statement per request');
  });
});

test('writes and engine-state statements are refused; files outside the manifest cannot be read', async (t) => {
  await withRuntime(t, setup, async ({ sql }) => {
    const insert = await errorOf(await sql("INSERT INTO orders (order_id) VALUES (1)"));
    t.is(insert.status, 403);
    t.is(insert.code, 'WRITE_NOT_ALLOWED');
    const drop = await errorOf(await sql('DROP TABLE orders'));
    t.is(drop.code, 'WRITE_NOT_ALLOWED');
    const set = await errorOf(await sql('SET threads = 1'));
    t.is(set.status, 400);
    t.is(set.code, 'STATEMENT_NOT_ALLOWED');
    t.is(set.message, 'SET statements are not accepted: queries may read datasets (SELECT, WITH, EXPLAIN, DESCRIBE, SHOW, SUMMARIZE)');
    const file = await errorOf(await sql("SELECT * FROM read_csv('/etc/passwd')"));
    t.is(file.status, 403);
    t.is(file.code, 'ACCESS_DENIED');
    // A write the engine refuses to bind (it may not touch the file) is still refused as a write.
    const copy = await errorOf(await sql("COPY orders TO '/tmp/stolen.csv'"));
    t.is(copy.status, 403);
    t.is(copy.code, 'WRITE_NOT_ALLOWED');
    t.is((await sql('SELECT count(*) FROM orders')).status, 200, 'datasets stay intact');
  });
});

test('JSON bodies carry positional parameters; mistakes are explained', async (t) => {
  await withRuntime(t, setup, async ({ baseUrl }) => {
    const post = (body: unknown) =>
      fetch(`${baseUrl}/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
    const ok = await post({ sql: 'SELECT count(*) AS n FROM orders WHERE status = $1 AND quantity >= $2', parameters: ['delivered', 3] });
    t.is(ok.status, 200);
    const rows = (await ok.json()) as Array<{ n: number }>;
    t.true(rows[0]!.n > 0);
    const wrongCount = await errorOf(await post({ sql: 'SELECT $1 + $2', parameters: [1] }));
    t.deepEqual([wrongCount.status, wrongCount.code, wrongCount.message], [400, 'PARAMETERS_INVALID', 'the statement has 2 placeholders ($1..$2) but 1 parameter was given']);
    const named = await errorOf(await post({ sql: 'SELECT 1', parameters: { a: 1 } }));
    t.is(named.code, 'PARAMETERS_INVALID');
    const object = await errorOf(await post({ sql: 'SELECT $1', parameters: [{ a: 1 }] }));
    t.is(object.message, 'parameter $1 is an object; parameters must be strings, numbers, booleans or null (cast in SQL, e.g. $1::DATE)');
    const malformed = await errorOf(await post('{"sql": '));
    t.is(malformed.code, 'BODY_INVALID_JSON');
    const extra = await errorOf(await post({ sql: 'SELECT 1', params: [] }));
    t.is(extra.message, 'unknown field "params" in the JSON body; accepted fields are "sql" and "parameters"');
  });
});

test('unknown routes are 404 JSON', async (t) => {
  await withRuntime(t, setup, async ({ baseUrl }) => {
    const error = await errorOf(await fetch(`${baseUrl}/v1/nope`));
    t.deepEqual([error.status, error.code, error.message], [404, 'ROUTE_NOT_FOUND', 'no endpoint GET /v1/nope']);
  });
});
