#!/usr/bin/env node
// The `prepare` script: compiles TypeScript into dist/ and builds the playground's front end
// (scripts/build-playground.mjs) unless dist/ is already newer than every source file. npm runs `prepare` on every `npm install` and also whenever `npx quarryd` links
// the checkout into its cache: a full tsc build there made the first `npx quarryd` take 15-50 s
// for nothing. `npm run build` (--force) always compiles.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist', '.build-stamp');
const SOURCES = ['core', 'plugins', 'cli', 'sdk', 'playground'];
const SOURCE_FILE = /\.(ts|css|html)$/;
const CONFIGS_EXTRA = ['scripts/build-playground.mjs'];
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json', 'package.json'];

function newestSource() {
  let newest = 0;
  const visit = (directory) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const file = path.join(directory, entry.name);
      if (entry.isDirectory()) visit(file);
      else if (SOURCE_FILE.test(entry.name)) newest = Math.max(newest, statSync(file).mtimeMs);
    }
  };
  for (const folder of SOURCES) if (existsSync(path.join(root, folder))) visit(path.join(root, folder));
  for (const config of [...CONFIGS, ...CONFIGS_EXTRA]) newest = Math.max(newest, statSync(path.join(root, config)).mtimeMs);
  return newest;
}

if (!process.argv.includes('--force') && existsSync(stamp) && statSync(stamp).mtimeMs >= newestSource()) {
  console.error('quarry: dist/ is up to date with the sources (npm run build compiles anyway)');
  process.exit(0);
}
const startedAt = Date.now();
const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
const playground = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-playground.mjs')], { stdio: 'inherit' });
if (playground.status !== 0) process.exit(playground.status ?? 1);
// Written after the build: a source saved while tsc ran is newer than the stamp, so the next prepare builds again.
writeFileSync(stamp, `${new Date(startedAt).toISOString()}\n`);
