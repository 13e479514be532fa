/**
 * startup: time from spawning quarryd to `GET /v1/ready` answering 200, for the quickstart
 * manifest and for a manifest of 20 accelerated datasets (10 Parquet, 10 CSV, 100k rows
 * each). Targets: <= 1.5 s and <= 3 s. quarryd runs as shipped, `bin/quarryd.js` over the
 * compiled dist/ (`npm run bench` rebuilds it; QUARRY_FROM_SOURCE=1 runs the TypeScript through
 * tsx instead). Baseline in the same run: a Node process in which DuckDB alone loads the same
 * files the same way (duckdb-alone.mjs), from spawn to exit. Also shown: a bare Node process
 * doing nothing, the floor both share. Runs are sequential (the machine is shared): RUNS
 * each, medians.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { benchData, FROM_SOURCE, median, quarrydEntry, repositoryRoot } from '../common/server.js';

const RUNS = Number(process.env['STARTUP_RUNS'] ?? 3);
const ROWS_PER_DATASET = 100_000;

interface Dataset {
  readonly name: string;
  readonly file: string;
  readonly expression: string;
  readonly accelerated: boolean;
}

/**
 * Spawns quarryd on the manifest directory: ms from spawn until /v1/ready is 200, and of
 * that, ms until its first log line (`starting quarry`: Node started, the modules quarryd
 * imports up front loaded and the manifest read; the Flight server's modules load after it,
 * while the engine starts).
 */
async function quarryReadyMs(directory: string): Promise<{ readyMs: number; modulesMs: number }> {
  const started = performance.now();
  const spawnedAt = Date.now();
  const entry = quarrydEntry();
  const child = spawn(process.execPath, [...entry, directory, '--http', '127.0.0.1:0', '--flight', '127.0.0.1:0'], {
    cwd: repositoryRoot,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const baseUrl = await new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        const match = /HTTP listening endpoint=(http:\/\/[\d.:]+)/.exec(log);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`quarryd exited with ${code}:\n${log}`)));
    });
    for (;;) {
      const response = await fetch(`${baseUrl}/v1/ready`).catch(() => undefined);
      if (response?.status === 200) {
        const readyMs = performance.now() - started;
        const firstLine = /^(\S+Z) INFO\s+starting quarry/m.exec(log)?.[1];
        return { readyMs, modulesMs: firstLine ? Date.parse(firstLine) - spawnedAt : Number.NaN };
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** Spawns a plain Node process running `script args`; resolves with ms from spawn to exit. */
async function processMs(script: string, args: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [script, ...args], { cwd: repositoryRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${script} exited with ${code}: ${output}`);
  return performance.now() - started;
}

async function makeTwentyDatasets(directory: string): Promise<Dataset[]> {
  mkdirSync(path.join(directory, 'data'), { recursive: true });
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const datasets: Dataset[] = [];
  for (let index = 0; index < 20; index++) {
    const parquet = index % 2 === 0;
    const file = path.join(directory, 'data', `d${index}.${parquet ? 'parquet' : 'csv'}`);
    const rows = `SELECT i AS id, i % 97 AS category, 'item ' || i AS label, i * 0.5 AS amount, DATE '2024-01-01' + (i % 365)::INT AS day FROM range(${ROWS_PER_DATASET}) t(i)`;
    await connection.run(`COPY (${rows}) TO '${file}' (FORMAT ${parquet ? 'parquet' : 'csv'})`);
    datasets.push({ name: `d${index}`, file: `data/d${index}.${parquet ? 'parquet' : 'csv'}`, expression: parquet ? `read_parquet('${file}')` : `read_csv('${file}')`, accelerated: true });
  }
  instance.closeSync();
  const manifest = ['version: v2', 'kind: Spicepod', 'name: startup-20', 'datasets:'];
  for (const dataset of datasets) manifest.push(`  - from: file:${dataset.file}`, `    name: ${dataset.name}`, '    acceleration:', '      enabled: true');
  writeFileSync(path.join(directory, 'quarry.yaml'), `${manifest.join('\n')}\n`);
  return datasets;
}

function quickstartDatasets(directory: string): Dataset[] {
  cpSync(path.join(repositoryRoot, 'examples/quickstart'), directory, { recursive: true });
  const orders = path.join(directory, 'data/orders.parquet');
  const customers = path.join(directory, 'data/customers.csv');
  return [
    { name: 'orders', file: orders, expression: `read_parquet('${orders}')`, accelerated: true },
    { name: 'customers', file: customers, expression: `read_csv('${customers}')`, accelerated: false },
  ];
}

const root = path.join(benchData, 'startup');
rmSync(root, { recursive: true, force: true });
const emptyScript = path.join(root, 'empty.mjs');
mkdirSync(root, { recursive: true });
writeFileSync(emptyScript, 'export {};\n');
const baselineScript = path.join(repositoryRoot, 'bench/startup/duckdb-alone.mjs');
if (!FROM_SOURCE && !existsSync(path.join(repositoryRoot, 'dist/cli/quarryd/main.js'))) {
  console.error('dist/ is missing: run `npm run build` first (or QUARRY_FROM_SOURCE=1 to run the TypeScript through tsx)');
  process.exit(2);
}

const cases = [
  { label: 'quickstart (2 datasets)', target: 1500, directory: path.join(root, 'quickstart'), make: async (directory: string) => quickstartDatasets(directory) },
  { label: '20 datasets x 100k rows', target: 3000, directory: path.join(root, 'twenty'), make: makeTwentyDatasets },
];

const floorRuns: number[] = [];
for (let run = 0; run < RUNS; run++) floorRuns.push(await processMs(emptyScript, []));
const floor = median(floorRuns);
console.log(`quarryd from ${FROM_SOURCE ? 'source (tsx)' : 'dist/ (bin/quarryd.js)'}; a bare Node process: ${floor.toFixed(0)} ms (the floor of both columns)`);
console.log('(modules): of quarryd ready, the time until its first log line: Node started, the up-front modules loaded, the manifest read');
console.log('');
console.log('manifest                  quarryd ready   (modules)   DuckDB alone   ratio   target');
for (const benchCase of cases) {
  mkdirSync(benchCase.directory, { recursive: true });
  const datasets = await benchCase.make(benchCase.directory);
  await quarryReadyMs(benchCase.directory); // warm the OS file cache for both sides
  const quarryRuns: number[] = [];
  const moduleRuns: number[] = [];
  const duckdbRuns: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const { readyMs, modulesMs } = await quarryReadyMs(benchCase.directory);
    quarryRuns.push(readyMs);
    moduleRuns.push(modulesMs);
    duckdbRuns.push(await processMs(baselineScript, [JSON.stringify(datasets)]));
  }
  const quarry = median(quarryRuns);
  const modules = median(moduleRuns);
  const duckdb = median(duckdbRuns);
  const verdict = quarry <= benchCase.target ? 'met' : 'MISSED';
  console.log(`${benchCase.label.padEnd(26)}${`${quarry.toFixed(0)} ms`.padStart(13)}${`${modules.toFixed(0)} ms`.padStart(12)}${`${duckdb.toFixed(0)} ms`.padStart(15)}${(quarry / duckdb).toFixed(2).padStart(8)}   <= ${benchCase.target} ms ${verdict}`);
}
rmSync(root, { recursive: true, force: true });
