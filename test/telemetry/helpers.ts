import { rmSync } from 'node:fs';
import type { ExecutionContext } from 'ava';
import { createLogger, type LogRecord } from '../../core/log.js';
import { loadManifest } from '../../core/manifest/load.js';
import { Runtime } from '../../core/runtime.js';
import { FlightSqlClient } from '../../core/flight/client/flight-sql-client.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { writeManifestDirectory, type RuntimeSetup, type TestRuntime } from '../helpers/runtime.js';

export interface TelemetryRuntime extends TestRuntime {
  /** `http://127.0.0.1:PORT` of the --metrics listener (empty when off). */
  metricsUrl: string;
  scrape(): Promise<string>;
  /** A Flight SQL client to the runtime's Flight listener (needs `flight: true`); closed on stop. */
  flightClient(): FlightSqlClient;
}

export interface TelemetrySetup extends RuntimeSetup {
  /** Start the --metrics listener on a free port. */
  metrics?: boolean;
}

/** Like startRuntime (test/helpers/runtime.ts), plus the --metrics listener. */
export async function startTelemetryRuntime(setup: TelemetrySetup): Promise<TelemetryRuntime> {
  const directory = writeManifestDirectory(setup);
  const logs: LogRecord[] = [];
  const log = createLogger({ level: 'verbose', sink: (record) => logs.push(record) });
  const loaded = await loadManifest({ path: directory, bundle: setup.bundle ?? defaultPlugins() });
  for (const warning of loaded.warnings) log.warn(warning);
  const runtime = new Runtime({
    manifest: loaded.manifest,
    source: loaded.source,
    plugins: loaded.plugins,
    log,
    http: '127.0.0.1:0',
    flight: setup.flight ? '127.0.0.1:0' : false,
    ...(setup.metrics ? { metrics: '127.0.0.1:0' } : {}),
  });
  await runtime.start();
  if (setup.waitForLoad !== false) await runtime.whenLoaded();
  const baseUrl = `http://${runtime.httpEndpoint}`;
  const metricsEndpoint = runtime.listeners().find((listener) => listener.name === 'metrics' && listener.status === 'Ready')?.endpoint;
  const metricsUrl = metricsEndpoint ? `http://${metricsEndpoint}` : '';
  const clients: FlightSqlClient[] = [];
  runtime.hooks.shutdown.stop.tap({ name: 'test:flight-clients', stage: -1000 }, () => {
    for (const client of clients) client.close();
  });
  return {
    runtime,
    baseUrl,
    directory,
    logs,
    metricsUrl,
    scrape: async () => {
      const response = await fetch(`${metricsUrl}/metrics`);
      if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
      return response.text();
    },
    flightClient: () => {
      const client = FlightSqlClient.connect({ endpoint: `grpc://${runtime.flightEndpoint}` });
      clients.push(client);
      return client;
    },
    sql: (sql, init = {}) =>
      fetch(`${baseUrl}/v1/sql`, { method: 'POST', body: sql, headers: { ...(init.accept ? { accept: init.accept } : {}), ...init.headers } }),
  };
}

export async function withTelemetryRuntime(t: ExecutionContext, setup: TelemetrySetup, body: (context: TelemetryRuntime) => Promise<void>): Promise<void> {
  const context = await startTelemetryRuntime(setup);
  try {
    await body(context);
  } finally {
    await context.runtime.stop();
    rmSync(context.directory, { recursive: true, force: true });
  }
}

/** One sample of the Prometheus text: name, labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the sample lines of Prometheus text (label values without escaped quotes suffice here). */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample with this name and exactly these labels (undefined when absent). */
export function sampleValue(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return samples.find((sample) => sample.name === name && JSON.stringify(Object.entries(sample.labels).sort()) === wanted)?.value;
}

/** Metric family names present in the text (from `# TYPE` lines). */
export function familyNames(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]!);
}

/** Polls until `check` returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 5_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
