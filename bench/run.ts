/**
 * Benchmarks (not tests): `npm run bench -- NAME`. Each prints its figure beside a baseline
 * measured in the same run, as a ratio, because these machines are noisy.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { FROM_SOURCE, repositoryRoot } from './common/server.js';

const benchmarks: Record<string, () => Promise<unknown>> = {
  'sql-json': () => import('./sql-json/run.js'),
  tpch: () => import('./tpch/run.js'),
  'flight-doget': () => import('./flight-doget/run.js'),
  'cache-hit': () => import('./cache-hit/run.js'),
  'tls-reload': () => import('./tls-reload/run.js'),
  startup: () => import('./startup/run.js'),
  cluster: () => import('./cluster/run.js'),
  ingest: () => import('./ingest/run.js'),
  'query-overhead': () => import('./query-overhead/run.js'),
  search: () => import('./search/run.js'),
};

const name = process.argv[2];
if (!name || !(name in benchmarks)) {
  console.error(`usage: npm run bench -- <${Object.keys(benchmarks).join('|')}>`);
  process.exit(2);
}
if (!FROM_SOURCE) {
  // quarryd runs as shipped (dist/): rebuilt first, so the figures are of the current source.
  const build = spawnSync(process.execPath, [path.join(repositoryRoot, 'node_modules/typescript/bin/tsc'), '-p', path.join(repositoryRoot, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (build.status !== 0) {
    console.error('npm run build failed: the benchmarks run the compiled quarryd (QUARRY_FROM_SOURCE=1 runs the TypeScript instead)');
    process.exit(1);
  }
}
await benchmarks[name]!();
