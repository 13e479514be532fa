#!/usr/bin/env node
// Builds native/ (the DuckDB helpers native/duckdb-result-status.c, native/duckdb-async-scalar.c,
// native/duckdb-string-vector.c, native/duckdb-batch-fetch.c and native/duckdb-appender-flush.c, and
// native/listen-socket.c, which gives the HTTP listener its accept lanes)
// with node-gyp at install time. Run by `npm install` (the install script) and `npm run build:native`.
//
// node-gyp would download Node's headers unless told where they are: a Node installed from a
// distribution package or an official tarball has them beside its binary (<prefix>/include/node),
// and nothing may be downloaded at install on these machines. Without them, node-gyp's own
// behaviour (and error) applies.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const nodeGyp = process.env.npm_config_node_gyp
  ?? path.resolve(path.dirname(process.execPath), '../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js');
const prefix = path.resolve(path.dirname(process.execPath), '..');
const args = [nodeGyp, 'rebuild', '--directory', path.join(root, 'native')];
if (existsSync(path.join(prefix, 'include', 'node', 'node_api.h'))) args.push(`--nodedir=${prefix}`);

// npm runs this on every install, and when `npx quarryd` links the checkout: skip a rebuild
// when both addons are newer than their sources (`npm run build:native` passes --force).
const built = ['duckdb_result_status.node', 'duckdb_async_scalar.node', 'duckdb_string_vector.node', 'duckdb_batch_fetch.node', 'duckdb_appender_flush.node', 'listen_socket.node'].map((name) => path.join(root, 'native', 'build', 'Release', name));
const sources = readdirSync(path.join(root, 'native')).filter((name) => /\.(c|h|gyp)$/.test(name)).map((name) => path.join(root, 'native', name));
const newestSource = Math.max(...sources.map((file) => statSync(file).mtimeMs));
if (!process.argv.includes('--force') && built.every((file) => existsSync(file) && statSync(file).mtimeMs >= newestSource)) {
  console.error('quarry: native/ addons are up to date (npm run build:native rebuilds anyway)');
  process.exit(0);
}

if (!existsSync(nodeGyp)) {
  console.error(`quarry: node-gyp was not found at ${nodeGyp}; run this script through npm (npm run build:native)`);
  process.exit(1);
}
const rebuilt = spawnSync(process.execPath, args, { stdio: 'inherit' });
if (rebuilt.status !== 0) {
  console.error('quarry: building native/ failed: the runtime cannot tell a failed streamed query from a finished one, run remote functions, copy text columns to Arrow in one call per vector, nor accept more than one connection per turn of its event loop without it (needs g++, make, python3 and Node\'s headers)');
  process.exit(rebuilt.status ?? 1);
}
