#!/usr/bin/env node
// Builds native/ (the DuckDB helpers: native/duckdb-result-status.c, native/duckdb-async-scalar.c)
// with node-gyp at install time. Run by `npm install` (the install script) and `npm run build:native`.
//
// node-gyp would download Node's headers unless told where they are: a Node installed from a
// distribution package or an official tarball has them beside its binary (<prefix>/include/node),
// and nothing may be downloaded at install on these machines. Without them, node-gyp's own
// behaviour (and error) applies.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const nodeGyp = process.env.npm_config_node_gyp
  ?? path.resolve(path.dirname(process.execPath), '../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js');
const prefix = path.resolve(path.dirname(process.execPath), '..');
const args = [nodeGyp, 'rebuild', '--directory', path.join(root, 'native')];
if (existsSync(path.join(prefix, 'include', 'node', 'node_api.h'))) args.push(`--nodedir=${prefix}`);

if (!existsSync(nodeGyp)) {
  console.error(`quarry: node-gyp was not found at ${nodeGyp}; run this script through npm (npm run build:native)`);
  process.exit(1);
}
const built = spawnSync(process.execPath, args, { stdio: 'inherit' });
if (built.status !== 0) {
  console.error('quarry: building native/ failed: the runtime cannot tell a failed streamed query from a finished one, nor run remote functions, without it (needs g++, make, python3 and Node\'s headers)');
  process.exit(built.status ?? 1);
}
