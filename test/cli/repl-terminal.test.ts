/**
 * The `quarry sql` REPL as people use it: in a real terminal (a pseudo-terminal made by
 * helpers/pty_bridge.py, of a set size), keys typed as keys, against a real runtime (the
 * quickstart's datasets; the spinner case uses the fake runtime, whose query waits for the
 * test). Each test is one habit list of the operator issue: psql's and DuckDB's commands,
 * Ctrl-C and Ctrl-D, history, Ctrl-R, Tab, width, pager, spinner.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { QUICKSTART_MANIFEST, withRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startQuarryInTerminal, temporaryHome, withoutEscapes, type QuarrySession } from './helpers/cli-process.js';
import { FakeRuntime } from './helpers/fake-runtime.js';

const ENTER = '\r';
const CTRL_C = '\u0003';
const CTRL_D = '\u0004';
const CTRL_R = '\u0012';
const UP = '\u001b[A';
const TAB = '\t';

async function withRepl(t: Parameters<typeof withRuntime>[0], options: { columns?: number; rows?: number; env?: Record<string, string>; home?: string }, body: (session: QuarrySession, context: TestRuntime) => Promise<void>): Promise<void> {
  await withRuntime(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true }, async (context) => {
    const session = startQuarryInTerminal(['sql', '--endpoint', context.baseUrl], { env: { QUARRY_PAGER: '', ...options.env }, ...options });
    try {
      await session.waitForOutput('sql> ');
      await body(session, context);
    } finally {
      session.signal('SIGKILL');
      await session.exited;
    }
  });
}

/** Types a line and waits until its output is followed by a fresh prompt. */
async function enter(session: QuarrySession, line: string): Promise<string> {
  const before = session.screen.length;
  const prompts = session.screen.split('sql> ').length - 1;
  session.write(`${line}${ENTER}`);
  await session.waitForOutput('sql> ', prompts + 1);
  return session.screen.slice(before);
}

test('psql and DuckDB commands: \\? \\dt \\d .tables .schema \\x .mode \\timing .timer, unknown ones named, \\q leaves', async (t) => {
  await withRepl(t, {}, async (session) => {
    t.regex(await enter(session, '\\?'), /\\d NAME +the columns of a table/);
    t.regex(await enter(session, '\\dt'), /│ orders +│/);
    t.regex(await enter(session, '.tables'), /│ customers +│/);
    const described = await enter(session, '\\d orders');
    t.regex(described, /│ Column +│ Type +│ Nullable │/);
    t.regex(described, /│ order_id +│ [A-Z]+ +│ YES +│/);
    t.regex(await enter(session, '.schema orders'), /CREATE TABLE orders\(order_id [A-Z]+, .*\);\n/);
    t.regex(await enter(session, '\\d nowhere'), /Did not find any table named "nowhere"\./);

    t.regex(await enter(session, '\\x'), /Expanded display is on\./);
    const expanded = await enter(session, 'select 1 as a, \'x\' as bee;');
    t.regex(expanded, /-\[ RECORD 1 \]-*\na   \| 1\nbee \| x\n/);
    t.regex(await enter(session, '\\x off'), /Expanded display is off\./);
    await enter(session, '.mode line');
    t.regex(await enter(session, 'select 2 as a, \'y\' as bee;'), /  a = 2\nbee = y\n/);
    await enter(session, '.mode csv');
    t.regex(await enter(session, 'select 3 as a;'), /a\n3\n/);
    await enter(session, '.mode json');
    t.regex(await enter(session, 'select 4 as a;'), /\[\{"a":4\}\]\n/);
    t.regex(await enter(session, '.mode'), /current output mode: json/);
    t.regex(await enter(session, '.mode html'), /\.mode html: not a mode; the modes are table, csv, json, line/);
    await enter(session, '.mode table');

    t.regex(await enter(session, '\\timing'), /Timing is off\./);
    const untimed = await enter(session, 'select 5 as a;');
    t.regex(untimed, /\n1 row\.\n/);
    t.false(untimed.includes('Time:'));
    t.regex(await enter(session, '.timer on'), /Timing is on\./);
    t.regex(await enter(session, 'select 6 as a;'), /Time: [\d.]+ seconds\. 1 row\./);
    t.regex(await enter(session, '.timer'), /\.timer takes on or off/);

    t.regex(await enter(session, '\\foo'), /Unknown command: \\foo\. Type \\\? or help for the commands\./);
    t.regex(await enter(session, '.foo bar'), /Unknown command: \.foo\./);
    session.write(`\\q${ENTER}`);
    t.is((await session.exited).code, 0);
  });
});

test('Ctrl-C clears the line, a second on an empty line leaves; Ctrl-D leaves', async (t) => {
  await withRepl(t, {}, async (session) => {
    session.write('select 1 +');
    session.write(ENTER);
    await session.waitForOutput('  -> ');
    session.write('2');
    session.write(CTRL_C);
    await session.waitForOutput('^C\n');
    await session.waitForOutput('sql> ', 2);
    t.regex(await enter(session, 'select 7 as seven;'), /│ +7 │/, 'the cleared statement is gone: the next one runs alone');
    session.write(CTRL_C);
    await session.waitForOutput('^C (press Ctrl-C again or Ctrl-D to leave)');
    session.write(CTRL_C);
    t.is((await session.exited).code, 0);
  });
  await withRepl(t, {}, async (session) => {
    session.write(CTRL_D);
    t.is((await session.exited).code, 0);
  });
});

test('history: a multi-line statement comes back whole, Ctrl-R finds older ones, and both are kept in the history file', async (t) => {
  const home = temporaryHome();
  await withRepl(t, { home }, async (session) => {
    session.write(`select 42${ENTER}`);
    await session.waitForOutput('  -> ');
    t.regex(await enter(session, '  as answer;'), /│ +42 │/);
    await enter(session, 'select 1 as one;');
    // Up twice: the statement before last, whole, on one line.
    session.write(UP);
    session.write(UP);
    await session.waitForOutput('sql> select 42 as answer;');
    session.write(ENTER);
    await session.waitForOutput('     42 │', 2);
    // Ctrl-R, then text: the newest entry holding it.
    session.write(CTRL_R);
    await session.waitForOutput("(reverse-i-search)'': ");
    session.write('one');
    await session.waitForOutput("(reverse-i-search)'one': select 1 as one;");
    session.write('zzz');
    await session.waitForOutput("(failed reverse-i-search)'onezzz': select 1 as one;");
    session.write('\u0007');
    await session.waitForOutput('sql> ', 6);
    session.write(CTRL_R);
    session.write('answer');
    await session.waitForOutput("(reverse-i-search)'answer': select 42 as answer;");
    session.write(ENTER);
    await session.waitForOutput('     42 │', 3);
  });
  const file = readFileSync(join(home, 'query_history.txt'), 'utf8');
  t.true(file.startsWith('select 42 as answer;\nselect 1 as one;\nselect 42 as answer;\n'), file);
});

test('Tab completes keywords, datasets and columns from the runtime', async (t) => {
  await withRepl(t, {}, async (session) => {
    session.write(`SEL${TAB}`);
    await session.waitForOutput('sql> SELECT');
    session.write(` count(*) FROM ord${TAB}`);
    await session.waitForOutput('SELECT count(*) FROM orders');
    session.write(` WHERE order_i${TAB}`);
    await session.waitForOutput('FROM orders WHERE order_id');
    session.write(` > 0;${ENTER}`);
    await session.waitForOutput('1 row.');
    t.regex(session.screen, /│ +5000 │/);
    // Several candidates: Tab twice lists them.
    session.write(`select * from cust${TAB}`);
    await session.waitForOutput('select * from customers');
    session.write(CTRL_C);
  });
});

test('a table wider than the terminal shows its first and last columns with … for the rest', async (t) => {
  await withRepl(t, { columns: 60 }, async (session) => {
    const columns = Array.from({ length: 20 }, (_, index) => `${index} AS column_${index}`).join(', ');
    const output = withoutEscapes(await enter(session, `select ${columns};`));
    const tableLines = output.split('\n').filter((line) => /^[┌│├└]/.test(line));
    t.true(tableLines.length >= 5, output);
    for (const line of tableLines) t.true([...line].length <= 60, `${[...line].length} cells: ${line}`);
    t.regex(tableLines[1]!, /│ column_0 │ .*│ … │ .*column_19 │$/);
    t.regex(output, /of 20 columns shown \(\\x shows every column\)\./);
  });
});

test('a result taller than the terminal goes through the pager', async (t) => {
  await withRepl(t, { rows: 12, env: { QUARRY_PAGER: 'less -SRFX' } }, async (session) => {
    session.write(`select range AS n from range(100);${ENTER}`);
    // less shows the first screen and waits: the last rows are not printed yet.
    await session.waitForOutput('      5 │');
    t.false(session.screen.includes('     99 │'));
    session.write('G');
    await session.waitForOutput('     99 │');
    session.write('q');
    await session.waitForOutput('sql> ', 2);
    t.regex(await enter(session, 'select 8 as eight;'), /│ +8 │/, 'the REPL has its keys back after the pager');
  });
});

test('a query running past a second shows a spinner with the time and rows received, erased before the result', async (t) => {
  const runtime = await FakeRuntime.start();
  const session = startQuarryInTerminal(['sql', '--endpoint', runtime.endpoint], { env: { QUARRY_PAGER: '' } });
  try {
    await session.waitForOutput('sql> ');
    session.write(`select * from held;${ENTER}`);
    await session.waitForOutput('rows received  Ctrl-C cancels');
    t.regex(session.screen, /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \d+\.\ds  0 rows received/);
    runtime.releaseHeld();
    await session.waitForOutput('1 row.');
    // The spinner's line is erased (carriage return, erase line) before the table is drawn.
    t.regex(session.stdout, /Ctrl-C cancels\r\u001b\[2K(\r\n)?┌/);
  } finally {
    session.signal('SIGKILL');
    await session.exited;
    await runtime.close();
  }
});
