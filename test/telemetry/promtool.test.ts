import { spawnSync } from 'node:child_process';
import test from 'ava';
import { QUICKSTART_MANIFEST } from '../helpers/runtime.js';
import { withTelemetryRuntime } from './helpers.js';

/**
 * `promtool check metrics` (Debian package `prometheus`) must parse the exposition without
 * error. Lint findings are accepted only where the names are Spice's and fixed: `_ms` units,
 * `_count` on gauges, and counters without `_total` (docs/metrics.md explains why).
 */
const SPICE_COUNT_GAUGES = /^(query_active_count|dataset_active_count|[a-z_]*_cache_(items_count|stale_swr_count|swr_background_query_count))$/;

function acceptedFinding(line: string, counters: ReadonlySet<string>): boolean {
  const [name, ...rest] = line.split(' ');
  const finding = rest.join(' ');
  if (name === undefined) return false;
  if (finding === 'counter metrics should have "_total" suffix') return counters.has(name);
  if (finding === 'metric names should not contain abbreviated units') return name.endsWith('_ms');
  if (finding === 'non-histogram and non-summary metrics should not have "_count" suffix') return SPICE_COUNT_GAUGES.test(name);
  return false;
}

test('promtool check metrics: no parse errors, and only the lint findings Spice names force', async (t) => {
  const version = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  if (version.error) {
    t.fail('promtool is not installed: install the Debian package "prometheus" (apt-get install -y prometheus) to run this check');
    return;
  }
  await withTelemetryRuntime(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true, metrics: true, flight: true }, async ({ sql, flightClient, scrape, runtime }) => {
    await sql('SELECT count(*) FROM orders');
    await sql('SELECT count(*) FROM orders');
    await sql('SELECT nope');
    await flightClient().query('SELECT * FROM customers LIMIT 2');
    // Label values that need escaping in the text format.
    runtime.metrics.counter('escaping_check', { description: 'label "quotes", back\\slash\nand newline' }).add(1, { value: 'a "quoted" \\ value\nover lines' });
    const text = await scrape();
    const counters = new Set([...text.matchAll(/^# TYPE (\S+) counter$/gm)].map((match) => match[1]!));
    const result = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    const output = `${result.stdout}${result.stderr}`.trim();
    t.log(`promtool exit ${result.status}`);
    t.not(result.status, 1, `promtool found an error:\n${output}`);
    t.false(/parsing error/i.test(output), output);
    const unexpected = output.split('\n').filter((line) => line !== '' && !acceptedFinding(line, counters));
    t.deepEqual(unexpected, [], 'lint findings other than the accepted ones');
  });
});
