import { rmSync, writeFileSync, mkdirSync, cpSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExecutionContext } from 'ava';
import { createLogger, type LogRecord } from '../../core/log.js';
import { loadManifest } from '../../core/manifest/load.js';
import { Runtime } from '../../core/runtime.js';
import type { BundledPlugin } from '../../core/plugins/types.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { temporaryDirectory } from './temporary-directory.js';

export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const quickstartData = path.join(repositoryRoot, 'examples/quickstart/data');

export interface TestRuntime {
  runtime: Runtime;
  /** `http://127.0.0.1:PORT` (`https://` when the manifest enables runtime.tls) */
  baseUrl: string;
  directory: string;
  logs: LogRecord[];
  sql(sql: string, init?: { accept?: string; headers?: Record<string, string> }): Promise<Response>;
}

export interface RuntimeSetup {
  /** The manifest text, written as quarry.yaml. */
  manifest: string;
  /** Extra files, relative to the manifest directory. */
  files?: Record<string, string | Buffer>;
  /** Copy the quickstart data into `data/`. */
  withQuickstartData?: boolean;
  bundle?: BundledPlugin[];
  /** Wait for accelerated datasets before running the test (default true). */
  waitForLoad?: boolean;
  /** Also start the Flight SQL listener (on a free port: `runtime.flightEndpoint`). */
  flight?: boolean;
}

/** Writes a manifest (and files) into a fresh temp directory. */
export function writeManifestDirectory(setup: Pick<RuntimeSetup, 'manifest' | 'files' | 'withQuickstartData'>): string {
  const directory = temporaryDirectory('quarry-test-');
  writeFileSync(path.join(directory, 'quarry.yaml'), setup.manifest);
  if (setup.withQuickstartData) cpSync(quickstartData, path.join(directory, 'data'), { recursive: true });
  for (const [name, content] of Object.entries(setup.files ?? {})) {
    mkdirSync(path.dirname(path.join(directory, name)), { recursive: true });
    writeFileSync(path.join(directory, name), content);
  }
  return directory;
}

/** Starts a runtime on a free loopback port; the caller must `stop()` it (withRuntime does). */
export async function startRuntime(setup: RuntimeSetup): Promise<TestRuntime> {
  const directory = writeManifestDirectory(setup);
  const logs: LogRecord[] = [];
  const log = createLogger({ level: 'verbose', sink: (record) => logs.push(record) });
  const loaded = await loadManifest({ path: directory, bundle: setup.bundle ?? defaultPlugins() });
  for (const warning of loaded.warnings) log.warn(warning);
  const runtime = new Runtime({ manifest: loaded.manifest, source: loaded.source, plugins: loaded.plugins, log, http: '127.0.0.1:0', flight: setup.flight ? '127.0.0.1:0' : false });
  await runtime.start();
  if (setup.waitForLoad !== false) await runtime.whenLoaded();
  const baseUrl = `${runtime.tls ? 'https' : 'http'}://${runtime.httpEndpoint}`;
  return {
    runtime,
    baseUrl,
    directory,
    logs,
    sql: (sql, init = {}) =>
      fetch(`${baseUrl}/v1/sql`, {
        method: 'POST',
        body: sql,
        headers: { ...(init.accept ? { accept: init.accept } : {}), ...init.headers },
      }),
  };
}

/** got-style macro: starts a runtime from a manifest, runs the test, always stops it. */
export async function withRuntime(
  t: ExecutionContext,
  setup: RuntimeSetup,
  body: (context: TestRuntime) => Promise<void>,
): Promise<void> {
  const context = await startRuntime(setup);
  try {
    await body(context);
  } finally {
    await context.runtime.stop();
    rmSync(context.directory, { recursive: true, force: true });
    t.log(`runtime at ${context.baseUrl} stopped`);
  }
}

export const QUICKSTART_MANIFEST = `
version: v2
kind: Spicepod
name: test
datasets:
  - from: file:data/orders.parquet
    name: orders
    acceleration:
      enabled: true
  - from: file:data/customers.csv
    name: customers
`;
