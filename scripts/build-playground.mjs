#!/usr/bin/env node
// Builds the playground's front end (playground/) into dist/playground/ with esbuild: one ES
// module (app.js: the page, CodeMirror, Chart.js, apache-arrow), one stylesheet (app.css) and the
// page template (index.html). Run by scripts/build-if-stale.mjs after tsc, so `npm install` and
// `npm run build` both produce it; build.json records the sizes that docs/playground.md states.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'playground');
const output = path.join(root, 'dist', 'playground');

rmSync(output, { recursive: true, force: true });
mkdirSync(output, { recursive: true });
await build({
  entryPoints: { app: path.join(source, 'src', 'main.ts') },
  outdir: output,
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
  // Third-party licence comments go to app.js.LEGAL.txt, served nowhere but shipped beside it.
  legalComments: 'external',
  logLevel: 'warning',
});
copyFileSync(path.join(source, 'index.html'), path.join(output, 'index.html'));

const sizes = {};
const hash = createHash('sha256');
for (const file of ['app.js', 'app.css', 'index.html']) {
  const bytes = readFileSync(path.join(output, file));
  hash.update(bytes);
  sizes[file] = { bytes: bytes.length, gzip_bytes: gzipSync(bytes, { level: 9 }).length };
}
writeFileSync(path.join(output, 'build.json'), `${JSON.stringify({ version: hash.digest('hex').slice(0, 16), sizes }, null, 2)}\n`);
console.error(`quarry: playground built: app.js ${sizes['app.js'].bytes} bytes (${sizes['app.js'].gzip_bytes} gzipped), app.css ${sizes['app.css'].bytes} bytes`);
