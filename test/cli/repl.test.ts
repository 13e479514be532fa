/**
 * The `quarry sql` REPL driven through its stdin, against a fake runtime started in the
 * test (a stand-in for quarryd only until the end-to-end tests run against the real one).
 * Piped stdin is not a terminal, so readline reads plain lines; prompts are still printed.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { runQuarry, startQuarry, temporaryHome } from './helpers/cli-process.js';
import { closedPort } from './helpers/closed-port.js';
import { FakeRuntime } from './helpers/fake-runtime.js';

async function withRuntime(run: (runtime: FakeRuntime) => Promise<void>): Promise<void> {
  const runtime = await FakeRuntime.start();
  try {
    await run(runtime);
  } finally {
    await runtime.close();
  }
}

test('banner, multi-line statements with the continuation prompt, and .exit', async (t) => {
  await withRuntime(async (runtime) => {
    const input = ['select 1', '  as one;', "select 'a;b'", 'as text;', '.exit', 'select 2 as two;', ''].join('\n');
    const result = await runQuarry(['sql', '--endpoint', runtime.endpoint], { input });
    t.is(result.code, 0, result.stderr);
    t.true(result.stdout.startsWith("Welcome to the Quarry SQL REPL! Type 'help' for help.\nshow tables; -- list available tables\n"));
    t.true(result.stdout.includes('sql>   -> ┌'), 'second line of the statement gets the continuation prompt');
    // The `;` inside the string literal did not end the statement; .exit stopped before the last line.
    t.deepEqual(runtime.sqlReceived, ['select 1\n  as one', "select 'a;b'\nas text"]);
    t.regex(result.stdout, /│ a;b +│/);
    t.is((result.stdout.match(/Time: /g) ?? []).length, 2);
  });
});

test('.error, help and show tables without a semicolon', async (t) => {
  await withRuntime(async (runtime) => {
    const input = ['.error', 'selec 1;', '.error', 'help', 'show tables', ''].join('\n');
    const result = await runQuarry(['sql', '--endpoint', runtime.endpoint], { input });
    t.true(result.stdout.includes('sql> No previous error recorded.\n'));
    t.true(result.stdout.includes('Query Error: [SQL_INVALID] Parser Error: syntax error at or near "selec"\n'));
    t.true(result.stdout.includes('Status: HTTP 400\nCode: SQL_INVALID\nMessage: Parser Error: syntax error at or near "selec"\nStatement: selec 1\n'));
    t.true(result.stdout.includes('Commands (no \';\' needed):'));
    t.deepEqual(runtime.sqlReceived, ['selec 1', 'SHOW TABLES']);
    t.true(result.stdout.includes('│ people  │'));
    // Piped input is a script: a failed statement makes the exit code 1.
    t.is(result.code, 1);
  });
});

test('end of input exits 0 and the history file is private to its owner', async (t) => {
  await withRuntime(async (runtime) => {
    const home = temporaryHome();
    const result = await runQuarry(['sql', '--endpoint', runtime.endpoint], { input: 'select 1 as one;\n-- just a note\n', home });
    t.is(result.code, 0, result.stderr);
    t.true(result.stdout.endsWith('sql> \n'));
    const file = join(home, 'query_history.txt');
    t.is(readFileSync(file, 'utf8'), 'select 1 as one;\n-- just a note\n');
    t.is(statSync(file).mode & 0o777, 0o600);
  });
});

test('a connection failure is reported and the REPL carries on', async (t) => {
  const port = await closedPort();
  const result = await runQuarry(['sql', '--endpoint', `http://127.0.0.1:${port}`], { input: 'select 1;\n.exit\n' });
  t.true(result.stdout.includes(`Error: runtime unavailable at http://127.0.0.1:${port} (HTTP API): is quarryd running?\n`));
  t.true(result.stdout.endsWith('sql> \n'));
});

test('SIGINT cancels the running query, keeps the REPL, and exits after two on an empty line', async (t) => {
  await withRuntime(async (runtime) => {
    const session = startQuarry(['sql', '--endpoint', runtime.endpoint]);
    await session.waitForOutput('sql> ');
    session.write('select * from slow;\n');
    await runtime.waitForRequest((request) => request.body === 'select * from slow');
    session.signal('SIGINT');
    await session.waitForOutput('Query cancelled.\n');
    session.write('select 1 as one;\n');
    await session.waitForOutput('1 row.');
    session.write('select 1\n');
    await session.waitForOutput('  -> ');
    // Ctrl-C with a statement in progress drops it...
    session.signal('SIGINT');
    await session.waitForOutput('^C\nsql> ');
    // ...on an empty line the first says how to leave, a second one in a row leaves.
    session.signal('SIGINT');
    await session.waitForOutput('^C (press Ctrl-C again or Ctrl-D to leave)\nsql> ');
    session.signal('SIGINT');
    const result = await session.exited;
    t.is(result.code, 0, result.stderr);
    t.deepEqual(runtime.sqlReceived, ['select * from slow', 'select 1 as one']);
  });
});
