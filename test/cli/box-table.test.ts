import test from 'ava';
import { escapeControlCharacters, renderBoxTable, type BoxColumn } from '../../cli/quarry/render/box-table.js';
import { displayWidth, padToWidth, truncateToWidth } from '../../cli/quarry/render/display-width.js';
import { renderPlainTable } from '../../cli/quarry/render/plain-table.js';

const columns: BoxColumn[] = [
  { name: 'id', type: 'bigint', align: 'right' },
  { name: 'name', type: 'varchar', align: 'left' },
];

test('draws names, a types row, a rule, then the rows', (t) => {
  t.is(
    renderBoxTable(columns, [
      ['1', 'alice'],
      ['22', 'NULL'],
    ]),
    [
      '┌────────┬─────────┐',
      '│     id │ name    │',
      '│ bigint │ varchar │',
      '├────────┼─────────┤',
      '│      1 │ alice   │',
      '│     22 │ NULL    │',
      '└────────┴─────────┘',
    ].join('\n'),
  );
});

test('leaves the types row out when no column has a type', (t) => {
  t.is(renderBoxTable([{ name: 'a', align: 'left' }], [['x']]), ['┌───┐', '│ a │', '├───┤', '│ x │', '└───┘'].join('\n'));
});

test('zero columns draw nothing; zero rows draw the header only', (t) => {
  t.is(renderBoxTable([], []), '');
  t.is(renderBoxTable([{ name: 'a', type: 'integer', align: 'right' }], []).split('\n').length, 5);
});

test('cuts long cells and headers with an ellipsis at the column width limit', (t) => {
  const table = renderBoxTable([{ name: 'a_very_long_column_name', type: 'varchar', align: 'left' }], [['x'.repeat(30)]], { maxColumnWidth: 10 });
  const lines = table.split('\n');
  t.is(lines[1], '│ a_very_lo… │');
  t.is(lines[4], '│ xxxxxxxxx… │');
  t.true(lines.every((line) => displayWidth(line) === 14));
});

test('lines up wide (CJK, emoji) and combining characters by terminal cells', (t) => {
  const table = renderBoxTable([{ name: 'text', type: 'varchar', align: 'left' }], [['山田太郎'], ['👍🏽 ok'], ['e\u0301te\u0301'], ['abc']]);
  const widths = table.split('\n').map(displayWidth);
  t.true(widths.every((width) => width === widths[0]), table);
  t.true(table.includes('│ 山田太郎 │'));
});

test('shows control characters as escapes so data cannot break rows or drive the terminal', (t) => {
  t.is(escapeControlCharacters('a\nb\tc\r\u001b[31m'), 'a\\nb\\tc\\r\\x1b[31m');
  const table = renderBoxTable([{ name: 'v', align: 'left' }], [['line1\nline2']]);
  t.is(table.split('\n').length, 5);
  t.true(table.includes('line1\\nline2'));
});

test('display widths and truncation work per grapheme cluster', (t) => {
  t.is(displayWidth('abc'), 3);
  t.is(displayWidth('日本語'), 6);
  t.is(displayWidth('ｈｉ'), 4);
  t.is(displayWidth('e\u0301'), 1);
  t.is(displayWidth('🇫🇷'), 2);
  t.is(displayWidth('👨‍👩‍👧'), 2);
  t.is(displayWidth('a\u200bb'), 2);
  t.is(truncateToWidth('日本語テキスト', 6), '日本…');
  t.is(truncateToWidth('日本語', 6), '日本語');
  t.is(truncateToWidth('🇫🇷🇫🇷🇫🇷', 4), '🇫🇷…');
  t.is(padToWidth('日本', 6, 'left'), '日本  ');
  t.is(padToWidth('7', 3, 'right'), '  7');
});

test('plain tables pad every column but the last', (t) => {
  t.is(
    renderPlainTable(
      ['NAME', 'STATUS'],
      [
        ['http', 'Ready'],
        ['opentelemetry', 'Disabled'],
      ],
    ),
    'NAME           STATUS\nhttp           Ready\nopentelemetry  Disabled\n',
  );
});
