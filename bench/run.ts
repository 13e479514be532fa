/**
 * Benchmarks (not tests): `npm run bench -- NAME`. Each prints its figure beside a baseline
 * measured in the same run, as a ratio, because these machines are noisy.
 */
const benchmarks: Record<string, () => Promise<unknown>> = {
  'sql-json': () => import('./sql-json/run.js'),
  tpch: () => import('./tpch/run.js'),
  'flight-doget': () => import('./flight-doget/run.js'),
  'cache-hit': () => import('./cache-hit/run.js'),
  'tls-reload': () => import('./tls-reload/run.js'),
  startup: () => import('./startup/run.js'),
  cluster: () => import('./cluster/run.js'),
};

const name = process.argv[2];
if (!name || !(name in benchmarks)) {
  console.error(`usage: npm run bench -- <${Object.keys(benchmarks).join('|')}>`);
  process.exit(2);
}
await benchmarks[name]!();
