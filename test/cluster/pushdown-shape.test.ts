import test from 'ava';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { doubleAverage, extendedAverage, unscaled } from '../../plugins/scheduler/routing/average.js';
import { queryShape, type QueryShape, type ShapeContext } from '../../plugins/scheduler/routing/query-shape.js';
import { aggregateLegStatement, averageFinish, legSql, topKLegStatement, wholeLegStatement } from '../../plugins/scheduler/routing/pushdown-statements.js';
import { parsedSelect, statementDocument, type SelectNode } from '../../plugins/scheduler/routing/syntax-tree.js';

// Which statements the scheduler pushes into its executors, decided on DuckDB's own parse
// (a real DuckDB here), and the arithmetic that finishes a pushed-down avg().

const COLUMNS: Array<[string, string]> = [['event_id', 'BIGINT'], ['customer_id', 'INTEGER'], ['amount', 'DECIMAL(10, 1)'], ['kind', 'VARCHAR'], ['ratio', 'DOUBLE']];
const context: ShapeContext = {
  datasets: new Map([['events', { name: 'events', columns: new Map(COLUMNS.map(([name, type]) => [name.toLowerCase(), { name, type }])) }]]),
  aggregateFunctions: new Set(['count', 'count_star', 'sum', 'min', 'max', 'avg', 'median', 'string_agg', 'first', 'list']),
};

let connection: DuckDBConnection;
test.before(async () => {
  connection = await (await DuckDBInstance.create(':memory:')).connect();
});

async function shapeOf(sql: string): Promise<QueryShape | undefined> {
  const reader = await connection.runAndReadAll(`SELECT json_serialize_sql('${sql.replaceAll("'", "''")}')`);
  const statement = parsedSelect(String(reader.getRows()[0]![0]));
  return statement && queryShape(statement, context);
}

async function render(node: SelectNode): Promise<string> {
  const reader = await connection.runAndReadAll(`SELECT json_deserialize_sql('${statementDocument(node).replaceAll("'", "''")}')`);
  return String(reader.getRows()[0]![0]);
}

const splits: Array<[string, 'union' | 'top-k' | 'aggregate' | undefined]> = [
  ['SELECT kind, count(*), sum(amount), avg(amount), min(event_id), max(kind) FROM events WHERE amount > 5 GROUP BY kind HAVING count(*) > 1 ORDER BY kind LIMIT 3', 'aggregate'],
  ['SELECT count(*) FROM events', 'aggregate'],
  ['SELECT upper(kind) AS k, sum(amount) / count(*) AS mean FROM events GROUP BY kind ORDER BY mean DESC', 'aggregate'],
  ['SELECT e.event_id, e.amount FROM events AS e WHERE e.kind = \'a\' ORDER BY e.amount DESC, 1 LIMIT 10 OFFSET 5', 'top-k'],
  ['SELECT event_id * 2 AS doubled FROM events ORDER BY doubled LIMIT 4', 'top-k'],
  ['SELECT * FROM events ORDER BY event_id LIMIT 4', 'top-k'],
  ['SELECT event_id, lower(kind) FROM events WHERE amount IS NULL', 'union'],
  ['SELECT count(DISTINCT kind) FROM events', 'aggregate'],
  ['SELECT kind, count(DISTINCT customer_id), count(DISTINCT customer_id) + 1 AS more, sum(amount) FROM events GROUP BY kind HAVING count(DISTINCT customer_id) > 1', 'aggregate'],
  // Still pushed whole to a single executor, but not split over several:
  ['SELECT count(DISTINCT kind), count(DISTINCT customer_id) FROM events', undefined],
  ['SELECT sum(DISTINCT amount) FROM events', undefined],
  ['SELECT median(amount) FROM events', undefined],
  ['SELECT sum(amount) FILTER (WHERE kind = \'a\') FROM events', undefined],
  ['SELECT kind, count(*) FROM events GROUP BY ROLLUP (kind)', undefined],
  ['SELECT kind, count(*) FROM events GROUP BY ALL', undefined],
  ['SELECT kind, count(*) FROM events GROUP BY 1', undefined],
  ['SELECT DISTINCT kind FROM events', undefined],
  ['SELECT event_id, row_number() OVER (ORDER BY amount) FROM events', undefined],
  ['SELECT * FROM events ORDER BY event_id', undefined],
  ['SELECT amount * 2 AS x FROM events WHERE x > 4', undefined],
  ['SELECT kind, count(*) AS c FROM events GROUP BY kind HAVING c > 1', undefined],
];

for (const [sql, split] of splits) {
  test(`split ${split ?? 'none (whole on one executor only)'}: ${sql}`, async (t) => {
    const shape = await shapeOf(sql);
    t.truthy(shape, 'the query runs whole on a single executor');
    t.is(shape?.split?.kind, split);
  });
}

const refused = [
  'SELECT * FROM events e JOIN customers c ON e.customer_id = c.customer_id',
  'SELECT * FROM events WHERE amount > (SELECT avg(amount) FROM events)',
  'WITH x AS (SELECT * FROM events) SELECT count(*) FROM x',
  'SELECT * FROM events WHERE event_id = $1',
  'SELECT random() FROM events',
  'SELECT current_setting(\'threads\'), count(*) FROM events',
  'SELECT * FROM events USING SAMPLE 10%',
  'SELECT 1 UNION ALL SELECT 2',
  'SELECT * FROM other_table',
  'SELECT * FROM main.events',
];
for (const sql of refused) {
  test(`not pushed at all: ${sql}`, async (t) => {
    t.is(await shapeOf(sql), undefined);
  });
}

test('filters on columns prune with constants of the column\'s kind only', async (t) => {
  const shape = await shapeOf("SELECT * FROM events WHERE customer_id = 42 AND kind IN ('a', 'b') AND 7 < event_id AND amount = 3 AND customer_id = '5' AND ratio IS NULL");
  t.deepEqual(shape?.filters, [
    { column: 'customer_id', operator: '=', value: 42 },
    { column: 'kind', operator: 'IN', values: ['a', 'b'] },
    { column: 'event_id', operator: '>', value: 7 },
    { column: 'ratio', operator: 'IS NULL' },
  ]);
});

test('legs: the partition predicate is added to the query\'s own filter; partial aggregates are named for the merge', async (t) => {
  const shape = (await shapeOf('SELECT kind, avg(amount) AS a, count(*) FROM events WHERE amount > 5 GROUP BY kind'))!;
  const plan = shape.split!;
  if (plan.kind !== 'aggregate') return t.fail();
  t.is(legSql(await render(aggregateLegStatement(shape, plan)), 'CAST((hash(customer_id) % 6) AS INTEGER) IN (1, 4)'),
    'SELECT kind AS quarry_g0, sum(amount) AS quarry_a0, count(amount) AS quarry_a1, count_star() AS quarry_a2 FROM events WHERE ((CAST((hash(customer_id) % 6) AS INTEGER) IN (1, 4)) AND (amount > 5)) GROUP BY kind');
  const whole = legSql(await render(wholeLegStatement(shape)), 'TRUE');
  t.is(whole, 'SELECT kind, avg(amount) AS a, count_star() FROM events WHERE ((TRUE) AND (amount > 5)) GROUP BY kind');
  // count(DISTINCT x): the legs group by x too and send it as quarry_d; other aggregates stay partial.
  const distinct = (await shapeOf('SELECT kind, count(DISTINCT customer_id) AS d, count(*) AS c FROM events GROUP BY kind'))!;
  if (distinct.split?.kind !== 'aggregate') return t.fail();
  t.is(legSql(await render(aggregateLegStatement(distinct, distinct.split)), 'TRUE'),
    'SELECT kind AS quarry_g0, customer_id AS quarry_d, count_star() AS quarry_a0 FROM events WHERE (TRUE) GROUP BY kind, customer_id');
  const topK = (await shapeOf('SELECT event_id AS id FROM events ORDER BY amount DESC, id LIMIT 3 OFFSET 2'))!;
  if (topK.split?.kind !== 'top-k') return t.fail();
  t.is(legSql(await render(topKLegStatement(topK, topK.split)), 'TRUE'), 'SELECT event_id, amount FROM events WHERE (TRUE) ORDER BY amount DESC, event_id LIMIT 5');
});

test('avg() finishes as DuckDB does for each argument type, or is not pushed', (t) => {
  t.deepEqual(averageFinish('INTEGER'), { kind: 'extended', scale: 0 });
  t.deepEqual(averageFinish('DECIMAL(10,2)'), { kind: 'extended', scale: 2 });
  t.deepEqual(averageFinish('DECIMAL(4,2)'), { kind: 'int16', scale: 2 });
  t.deepEqual(averageFinish('SMALLINT'), { kind: 'int16', scale: 0 });
  t.deepEqual(averageFinish('DOUBLE'), { kind: 'double' });
  t.is(averageFinish('TINYINT'), undefined);
  t.is(averageFinish('UBIGINT'), undefined);
  t.is(averageFinish('TIMESTAMP'), undefined);
  t.is(unscaled('-12.30', 2), -1230n);
  t.is(unscaled('0.05', 2), 5n);
  t.is(unscaled('170141183460469231731687303715884105727', 0), 170141183460469231731687303715884105727n);
});

test('a pushed-down avg() equals DuckDB\'s to the last bit, where plain double division does not', async (t) => {
  // sum / count lands just above a midpoint between two doubles: rounded to 64 bits first
  // (long double), it rounds to even instead of up.
  const count = 8192n;
  const sum = ((1n << 52n) + 2n) * count + 4096n + 1n;
  const value = sum / count;
  const reader = await connection.runAndReadAll(`SELECT avg(v) AS a FROM (SELECT ${value}::HUGEINT AS v FROM range(${count - 1n}) UNION ALL SELECT ${sum - value * (count - 1n)}::HUGEINT)`);
  const duckdb = reader.getRowObjectsJS()[0]!['a'] as number;
  t.is(extendedAverage(sum, count, 0), duckdb);
  t.not(Number(sum) / Number(count), duckdb, 'plain double division gives the other neighbour');

  // Random sums of BIGINT, DECIMAL(18,3) and DECIMAL(4,2) values, large and small.
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let round = 0; round < 200; round++) {
    const values = Array.from({ length: 1 + Math.floor(next() * 40) }, () => BigInt(Math.floor((next() - 0.5) * 2 ** 40)) * BigInt(1 + Math.floor(next() * 1e6)));
    const decimals = values.map((value) => value % 10n ** 15n);
    const smalls = values.map((value) => value % 9999n);
    const list = (items: bigint[], type: string, scale: number) => items.map((item) => `(CAST('${decimalText(item, scale)}' AS ${type}))`).join(', ');
    const rows = (await connection.runAndReadAll(
      `SELECT (SELECT avg(v) FROM (VALUES ${list(values, 'BIGINT', 0)}) t(v)) AS b,
              (SELECT avg(v) FROM (VALUES ${list(decimals, 'DECIMAL(18,3)', 3)}) t(v)) AS d,
              (SELECT avg(v) FROM (VALUES ${list(smalls, 'DECIMAL(4,2)', 2)}) t(v)) AS s`,
    )).getRowObjectsJS()[0]!;
    const total = (items: bigint[]) => items.reduce((sum, item) => sum + item, 0n);
    const n = BigInt(values.length);
    t.is(extendedAverage(total(values), n, 0), rows['b'] as number);
    t.is(extendedAverage(total(decimals), n, 3), rows['d'] as number);
    t.is(doubleAverage(total(smalls), n, 2), rows['s'] as number);
  }
});

/** `-1234n` at scale 2 → `-12.34`. */
function decimalText(raw: bigint, scale: number): string {
  const negative = raw < 0n;
  const digits = (negative ? -raw : raw).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}
