import test from 'ava';
import { DuckDBInstance } from '@duckdb/node-api';
import { constantsSignature, numericShape } from '../../core/engine/numeric-shape.js';
import { statementSurface } from '../../core/engine/statement-surface.js';

test('numbers become ?, and digits in strings, quoted identifiers, names and comments stay', (t) => {
  t.is(numericShape('SELECT * FROM orders WHERE order_id = 1234'), 'SELECT * FROM orders WHERE order_id = ?');
  t.is(
    numericShape("SELECT 'a1', \"c2\", t1.x, 1.5e3, .5, 1_000, -7 FROM t3 -- 42\n/* 7 */ LIMIT 10"),
    "SELECT 'a1', \"c2\", t1.x, ?, ?, ?, -? FROM t3 -- 42\n/* 7 */ LIMIT ?",
  );
  t.is(numericShape("SELECT 'it''s 5', \"a\"\"1\" FROM t WHERE x IN (1,2,3)"), "SELECT 'it''s 5', \"a\"\"1\" FROM t WHERE x IN (?,?,?)");
  t.is(numericShape('SELECT CAST(x AS DECIMAL(10, 2)) FROM t'), 'SELECT CAST(x AS DECIMAL(?, ?)) FROM t');
  t.is(numericShape("SELECT * FROM read_csv('data/2024-01.csv', skip = 1)"), "SELECT * FROM read_csv('data/2024-01.csv', skip = ?)");
  t.is(numericShape('SELECT 1 -- a comment to the end'), 'SELECT ? -- a comment to the end');
  t.is(numericShape('SELECT t.c1, s2.x, 3 - -4, 5/6 FROM s2'), 'SELECT t.c1, s2.x, ? - -?, ?/? FROM s2');
});

test('a text longer than 16 KiB has no shape (the engine parses it, off the event loop)', (t) => {
  const long = `SELECT 1 FROM t WHERE x IN (${Array.from({ length: 4_000 }, (_, index) => index).join(', ')})`;
  t.true(long.length > 16 * 1024);
  t.is(numericShape(long), undefined);
});

test('text the scanner cannot read without doubt has no shape', (t) => {
  for (const sql of [
    'SELECT $1',
    'SELECT $$5$$',
    "SELECT E'a\\'1'",
    "SELECT e'x'",
    "SELECT U&'d\\0061t'",
    "SELECT X'01'",
    "SELECT 'unterminated 5",
    'SELECT "unterminated 5',
    'SELECT 1 /* unterminated',
    'SELECT 1 /* /* nested */ */',
    'SELECT 0x1F',
    'SELECT 1abc',
    "SELECT 1'x'",
  ]) {
    t.is(numericShape(sql), undefined, sql);
  }
});

test('texts of one shape get the surface their own parse would give', async (t) => {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const variants: Array<[string, string]> = [
      ["SELECT * FROM read_csv('data/a1.csv', skip = 1) WHERE x > 5", "SELECT * FROM read_csv('data/a1.csv', skip = 99) WHERE x > 123456"],
      ['SELECT upper(name), abs(-3) FROM t1 LIMIT 10', 'SELECT upper(name), abs(-4.5e2) FROM t1 LIMIT 20'],
      ["SELECT * FROM range(10) JOIN 'files/2.parquet' USING (i)", "SELECT * FROM range(20) JOIN 'files/2.parquet' USING (i)"],
      ['EXPLAIN SELECT nextval(\'s\') + 1', 'EXPLAIN SELECT nextval(\'s\') + 2'],
    ];
    for (const [first, second] of variants) {
      t.is(numericShape(first.replace(/^EXPLAIN /, '')), numericShape(second.replace(/^EXPLAIN /, '')), 'one shape');
      await statementSurface(connection, first);
      const shared = await statementSurface(connection, second);
      // The same text with a comment in front has a shape of its own: parsed by the engine.
      const own = await statementSurface(connection, `/* own parse */ ${second.replace(/^EXPLAIN /, '')}`);
      t.true(shared.parsed && own.parsed);
      t.deepEqual([...shared.functions].sort(), [...own.functions].sort(), second);
      t.deepEqual(shared.fileReads, own.fileReads, second);
      t.deepEqual([...shared.tables].sort(), [...own.tables].sort(), second);
      t.deepEqual([...shared.tableFunctions].sort(), [...own.tableFunctions].sort(), second);
    }
    // Strings are no numbers: another path is another shape, and its own parse.
    const other = await statementSurface(connection, "SELECT * FROM read_csv('/etc/passwd', skip = 1) WHERE x > 5");
    t.deepEqual(other.fileReads, [{ via: 'read_csv()', path: '/etc/passwd' }]);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
});

/** The engine's parse tree without source positions, numeric constants' values left out. */
function withoutNumbers(tree: unknown): unknown {
  if (Array.isArray(tree)) return tree.map(withoutNumbers);
  if (tree === null || typeof tree !== 'object') return tree;
  const node = tree as Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) if (key !== 'query_location') kept[key] = withoutNumbers(value);
  const constant = node['class'] === 'CONSTANT' ? (node['value'] as { type?: { id?: string }; value?: unknown } | undefined) : undefined;
  if (constant && /INT|DECIMAL|DOUBLE|FLOAT/.test(constant.type?.id ?? '')) kept['value'] = 'a number';
  return kept;
}

test('hostile mixes of strings, names, comments and numbers: one shape is one parse, numbers aside (DuckDB)', async (t) => {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    let seed = 12_345;
    // A linear congruential generator's low bits repeat with a short period: draw from the high ones.
    const next = (below: number) => Math.floor(((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648) * below);
    const pick = <T>(choices: readonly T[]) => choices[next(choices.length)]!;
    const number = () => pick(['1', '22', '3.5', '.5', '1e3', '7_000', '0', '42', '2.', '9e-2']);
    // Values, and what may stand between two of them: comments holding quotes and numbers.
    const values: ReadonlyArray<() => string> = [
      number, () => `'a${number()}b'`, () => `'it''s ${number()}'`, () => `"c${number()}"`, () => `t${next(3)}`, () => `read_csv('/d/${number()}.csv')`,
      () => `read_text(['/a${number()}', '/b'])`, () => `abs(${number()})`, () => `"x""${number()}"`, () => `E'\\${number()}'`, () => `$$${number()}$$`,
      () => `x${number()}`, () => `${number()}x`, () => `t.${number()}`, () => `[${number()}, ${number()}]`, () => `"${number()}"`, () => `'--${number()}'`,
      () => `'/*${number()}'`, () => `U&'d${number()}'`, () => `X'${number()}'`, () => `${number()}::INT`, () => `' ${number()} '`, () => `'x = ${number()};'`,
      () => `" ${number()} "`, () => `' -- ${number()} '`, () => `'${number()} /* '`,
    ];
    const separators: ReadonlyArray<() => string> = [
      () => ', ', () => ` /* ${number()} '${number()} */, `, () => ` -- c ${number()} '\n, `, () => ` /* a /* b */ ${number()} */, `, () => `, /* " ${number()} */ `,
    ];
    const tree = async (sql: string) => JSON.parse(String((await connection.run(`SELECT json_serialize_sql('${sql.replaceAll("'", "''")}')`)).getChunk(0).getColumnValues(0)[0])) as { error?: boolean };
    let compared = 0;
    for (let index = 0; index < 3_000; index++) {
      const items = Array.from({ length: 1 + next(4) }, () => pick(values)());
      const text = `SELECT ${items.map((item, position) => (position === 0 ? item : `${pick(separators)()}${item}`)).join('')} FROM t0`;
      // The same text with some of its digits changed, wherever they are (strings and comments too).
      const changed = text.replace(/[0-9]/g, (digit) => (next(3) === 0 ? String((Number(digit) + 1) % 10) : digit));
      const shape = numericShape(text);
      if (shape === undefined || shape !== numericShape(changed)) continue;
      const [first, second] = [await tree(text), await tree(changed)];
      if (first.error || second.error) continue;
      compared++;
      t.deepEqual(withoutNumbers(second), withoutNumbers(first), `${text}\n${changed}`);
    }
    // A fixed seed: the same pairs every run; a scanner that refused far more texts would compare few.
    t.true(compared > 150, `${compared} pairs of one shape compared`);
    t.log(`${compared} pairs of texts of one shape parsed alike but for their numbers`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
});

test('a text\'s constants signature: its numbers and single-quoted strings as written, sorted; none where there is no shape', (t) => {
  t.is(constantsSignature("SELECT * FROM orders WHERE order_id = 1234 AND region = 'eu'"), ["'eu'", '1234'].join('\u0000'));
  t.is(constantsSignature("select * from ORDERS where REGION = 'eu' and order_id=1234"), constantsSignature("SELECT * FROM orders WHERE order_id = 1234 AND region = 'eu'"), 'case, spacing and order do not matter');
  t.is(constantsSignature('SELECT "c2", t1.x -- 42\n/* 7 */ FROM t3'), '', 'quoted names, digits in names and comments are no constants');
  t.is(constantsSignature("SELECT 'it''s', 1.5e3, .5, 1_000"), ["'it''s'", '.5', '1.5e3', '1_000'].join('\u0000'));
  t.not(constantsSignature("SELECT 'EU'"), constantsSignature("SELECT 'eu'"));
  t.not(constantsSignature('SELECT 10'), constantsSignature('SELECT 1e1'), 'written otherwise: another signature');
  for (const sql of ['SELECT $1', "SELECT E'x'", 'SELECT 1abc']) t.is(constantsSignature(sql), undefined, sql);
});
