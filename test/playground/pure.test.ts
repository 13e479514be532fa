import test from 'ava';
import { splitStatements, statementAt } from '../../playground/src/statements.js';
import { guessChart } from '../../playground/src/chart-guess.js';
import { MetricsRegistry } from '../../core/metrics/registry.js';
import { LiveFigures, percentile } from '../../plugins/playground/live-figures.js';

/** The playground's logic that needs no browser: statement splitting, chart guessing, live figures. */
const pieces = (text: string) => splitStatements(text).map((range) => text.slice(range.from, range.to));

test('statements split at top-level semicolons only', (t) => {
  t.deepEqual(pieces('SELECT 1; SELECT 2;'), ['SELECT 1', 'SELECT 2']);
  t.deepEqual(pieces("SELECT ';' AS a, 'it''s;' AS b; SELECT \"odd;name\" FROM t"), ["SELECT ';' AS a, 'it''s;' AS b", 'SELECT "odd;name" FROM t']);
  t.deepEqual(pieces('-- one; two\nSELECT 1 /* ; */;\n\n;  ;'), ['-- one; two\nSELECT 1 /* ; */']);
  t.deepEqual(pieces('SELECT $$a;b$$; SELECT $tag$x;y$tag$'), ['SELECT $$a;b$$', 'SELECT $tag$x;y$tag$']);
  t.deepEqual(pieces("SELECT 'unterminated; still string"), ["SELECT 'unterminated; still string"]);
  t.deepEqual(pieces('  -- only a comment\n'), []);
});

test('the statement under the cursor is the one holding it, else the one just before', (t) => {
  const text = 'SELECT 1 AS a;\nSELECT 2 AS b;\n\n';
  t.is(statementAt(text, 0), 'SELECT 1 AS a');
  t.is(statementAt(text, 5), 'SELECT 1 AS a');
  t.is(statementAt(text, 14), 'SELECT 1 AS a', 'just after the semicolon');
  t.is(statementAt(text, 20), 'SELECT 2 AS b');
  t.is(statementAt(text, text.length), 'SELECT 2 AS b', 'on the empty lines at the end');
  t.is(statementAt('   \n', 2), undefined);
});

test('charts are guessed from column types', (t) => {
  const column = (name: string, kind: 'number' | 'time' | 'text') => ({ name, numeric: kind === 'number', temporal: kind === 'time' });
  t.deepEqual(guessChart([column('month', 'time'), column('orders', 'number'), column('revenue', 'number')]), { kind: 'line', x: 'month', y: ['orders', 'revenue'] });
  t.deepEqual(guessChart([column('status', 'text'), column('orders', 'number')]), { kind: 'bar', x: 'status', y: ['orders'] });
  t.deepEqual(guessChart([column('quantity', 'number'), column('price', 'number')]), { kind: 'scatter', x: 'quantity', y: ['price'] });
  t.deepEqual(guessChart([column('n', 'number')]), { kind: 'line', x: undefined, y: ['n'] });
  t.deepEqual(guessChart([column('order_id', 'number'), column('ordered_at', 'time'), column('quantity', 'number')]), { kind: 'line', x: 'ordered_at', y: ['quantity'] }, 'identifiers are not measures');
  t.deepEqual(guessChart([column('order_id', 'number'), column('customer_id', 'number')]), { kind: 'scatter', x: 'order_id', y: ['customer_id'] }, 'unless nothing else is numeric');
  t.is(guessChart([column('name', 'text')]), undefined);
});

test('live figures keep one minute of durations and cache lookups', (t) => {
  let now = 0;
  const registry = new MetricsRegistry();
  const figures = new LiveFigures(registry, () => now);
  const duration = registry.histogram('query_duration_ms', { description: 'test' });
  const hits = registry.counter('results_cache_hits', { description: 'test' });
  const misses = registry.counter('results_cache_misses', { description: 'test' });
  registry.counter('query_executions', { description: 'test' }).add(3);
  hits.add(0);
  for (let index = 1; index <= 100; index += 1) {
    now = index * 100;
    duration.record(index);
  }
  misses.add(1);
  hits.add(3);
  now = 20_000;
  let report = figures.report();
  t.is(report.p95_ms, 95);
  t.is(report.queries_per_second, 100 / 20);
  t.is(report.cache_hit_ratio, 0.75);
  t.is(report.queries_total, 3);
  now = 70_001;
  report = figures.report();
  t.is(report.queries_per_second, 0, 'a minute later the window is empty');
  t.is(report.p95_ms, null);
  t.is(report.cache_hit_ratio, null);
  t.is(percentile([5, 1, 3], 0.5), 3);
});
