import test from 'ava';
import { renderTable } from '../../core/http/encoders/index.js';
import { withRuntime } from '../helpers/runtime.js';

const setup = { manifest: 'datasets: []\n' };

test('Accept: text/plain answers an aligned table as Spice does; no Accept or */* keeps the JSON rows', async (t) => {
  await withRuntime(t, setup, async ({ sql }) => {
    const query = "SELECT 1 AS id, 'one' AS label, NULL::INTEGER AS missing, 2.5::DOUBLE AS x UNION ALL SELECT 22, 'twenty-two', 7, NULL ORDER BY id";
    const table = await sql(query, { accept: 'text/plain' });
    t.is(table.status, 200);
    t.is(table.headers.get('content-type'), 'text/plain; charset=utf-8');
    t.is(
      await table.text(),
      [
        '+----+------------+---------+-----+',
        '| id | label      | missing | x   |',
        '+----+------------+---------+-----+',
        '| 1  | one        |         | 2.5 |',
        '| 22 | twenty-two | 7       |     |',
        '+----+------------+---------+-----+',
        '',
      ].join('\n'),
    );
    t.is(await (await sql('SELECT 1 AS one')).text(), '[{"one":1}]', 'no Accept: the spec\'s JSON rows');
    t.is(await (await sql('SELECT 1 AS one', { accept: '*/*' })).text(), '[{"one":1}]', 'curl\'s */*: JSON rows');
    t.is(
      await (await sql("SELECT 'a' || chr(10) || 'b' AS multi, 'héllo' AS accents", { accept: 'text/plain' })).text(),
      '+-------+---------+\n| multi | accents |\n+-------+---------+\n| a\\nb  | héllo   |\n+-------+---------+\n',
      'a line break inside a value is shown as \\n; widths count characters',
    );
    t.is(await (await sql('SELECT 1 AS one WHERE false', { accept: 'text/plain' })).text(), '+-----+\n| one |\n+-----+\n+-----+\n', 'no rows: the header alone');
  });
});

test('a table over 16 MiB of text is refused before its first byte with RESULT_TOO_LARGE_FOR_TABLE', async (t) => {
  await withRuntime(t, setup, async ({ sql }) => {
    const response = await sql("SELECT repeat('x', 1000) AS wide FROM range(20000)", { accept: 'text/plain' });
    t.is(response.status, 413);
    const body = (await response.json()) as { error: { code: string; message: string } };
    t.is(body.error.code, 'RESULT_TOO_LARGE_FOR_TABLE');
    t.regex(body.error.message, /application\/json or text\/csv/);
  });
});

test('renderTable lines up cells by characters, not bytes', (t) => {
  t.is(renderTable(['a', 'bb'], [['é', 'x'], ['', 'yyy']]), '+---+-----+\n| a | bb  |\n+---+-----+\n| é | x   |\n|   | yyy |\n+---+-----+\n');
});
