import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import test from 'ava';
import { QUICKSTART_MANIFEST, writeManifestDirectory } from '../helpers/runtime.js';
import { startDaemon } from '../helpers/daemon.js';

/**
 * Start-up loads only the libraries the manifest uses (docs: README "Start-up"). A real
 * quarryd runs the quickstart with a module loader hook that records every module URL Node
 * loads; once ready, none of the optional libraries may be among them. Then one MCP request
 * shows the lazy path works: the SDK loads on first use.
 */
const NOT_LOADED_AT_START = [
  '@modelcontextprotocol/sdk', // MCP: on the first /v1/mcp request
  '@aws-sdk/client-s3', // s3 datasets, s3:// state_location
  'pg',
  'pg-cursor', // postgres datasets
  'sql.js', // sqlite datasets
  'graphql', // graphql datasets
  '@opentelemetry/sdk-metrics', // --metrics listener or otel_exporter
  '@opentelemetry/exporter-prometheus',
  '@opentelemetry/exporter-metrics-otlp-grpc',
  '@opentelemetry/exporter-metrics-otlp-http',
  'hash-wasm', // results cache hashing_algorithm: blake3
  'xxhash-wasm', // xxh32, xxh64
  '@bokuweb/zstd-wasm', // encoding: zstd
  'jsts', // geo
];

function packagesIn(urls: readonly string[]): Set<string> {
  const packages = new Set<string>();
  for (const url of urls) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (match) packages.add(match[1]!);
  }
  return packages;
}

/** A loader hook that appends every module URL Node loads to a file; returns the --import module and the record. */
function moduleRecorder(): { register: string; record: string } {
  const work = mkdtempSync(path.join(os.tmpdir(), 'quarry-startup-modules-'));
  const record = path.join(work, 'modules.txt');
  writeFileSync(record, '');
  // The hooks run on Node's loader thread: each module URL is appended to the record as it loads.
  const hooks = path.join(work, 'hooks.mjs');
  writeFileSync(hooks, `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  appendFileSync(${JSON.stringify(record)}, url + '\\n');\n  return next(url, context);\n}\n`);
  const register = path.join(work, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  return { register, record };
}

async function whenReady(t: import('ava').ExecutionContext, daemon: Awaited<ReturnType<typeof startDaemon>>): Promise<void> {
  for (let attempt = 0; (await fetch(`${daemon.baseUrl}/v1/ready`)).status !== 200; attempt++) {
    if (attempt > 600) t.fail(`not ready:\n${daemon.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('quarryd loads no optional library at start-up; the MCP SDK loads on the first MCP request', async (t) => {
  const { register, record } = moduleRecorder();
  const directory = writeManifestDirectory({ manifest: QUICKSTART_MANIFEST, withQuickstartData: true });
  const daemon = await startDaemon([directory], { nodeArguments: ['--import', register] });
  t.teardown(async () => {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
  });
  await whenReady(t, daemon);

  const atReady = packagesIn(readFileSync(record, 'utf8').split('\n'));
  t.true(atReady.has('@duckdb/node-bindings') && atReady.has('apache-arrow') && atReady.has('@grpc/grpc-js'), `the record holds the libraries start-up needs: ${[...atReady].join(', ')}`);
  t.deepEqual(NOT_LOADED_AT_START.filter((name) => atReady.has(name)), [], 'optional libraries loaded before they were needed');

  const response = await fetch(`${daemon.baseUrl}/v1/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  t.is(response.status, 200);
  t.regex(await response.text(), /list_datasets/);
  t.true(packagesIn(readFileSync(record, 'utf8').split('\n')).has('@modelcontextprotocol/sdk'), 'the SDK loaded for the MCP request');
});

test('a disabled built-in plugin is never imported: none of its modules load', async (t) => {
  const { register, record } = moduleRecorder();
  const disabled = ['scheduler', 'mcp', 'task-history', 'telemetry', 'functions'];
  const manifest = `${QUICKSTART_MANIFEST}\nplugins:\n${disabled.map((name) => `  - name: ${name}\n    enabled: false\n`).join('')}`;
  const daemon = await startDaemon([writeManifestDirectory({ manifest, withQuickstartData: true })], { nodeArguments: ['--import', register] });
  t.teardown(async () => {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
  });
  await whenReady(t, daemon);
  const urls = readFileSync(record, 'utf8').split('\n');
  const pluginFolders = new Set(urls.flatMap((url) => /\/plugins\/([a-z-]+)\//.exec(url)?.[1] ?? []));
  t.true(pluginFolders.has('api-key') && pluginFolders.has('results-cache'), `enabled plugins load: ${[...pluginFolders].join(', ')}`);
  t.deepEqual(disabled.filter((name) => pluginFolders.has(name)), [], 'modules of disabled plugins were loaded');
  t.regex(daemon.output(), new RegExp(`disabled=${disabled.join(',')}`));
});
