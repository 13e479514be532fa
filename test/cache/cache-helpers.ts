import { STAGE } from '../../core/hooks/stages.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import type { QueryOutcome, QueryRequest } from '../../core/pipeline/types.js';
import { createResultsCachePlugin, type ResultsCachePlugin } from '../../plugins/results-cache/index.js';
import type { RuntimeSetup, TestRuntime } from '../helpers/runtime.js';

/** A writable accelerated dataset (`events`) and the quickstart's `orders`, with a runtime section. */
export function cacheManifest(runtimeSection = ''): string {
  return `
version: v2
kind: Spicepod
name: cache-test
datasets:
  - from: file:data/events.csv
    name: events
    access: read_write
    acceleration:
      enabled: true
  - from: file:data/orders.parquet
    name: orders
    acceleration:
      enabled: true
${runtimeSection ? `runtime:\n${runtimeSection.replace(/^/gm, '  ')}\n` : ''}`;
}

export const CACHE_FILES = { 'data/events.csv': 'id,label\n1,one\n2,two\n' };

/** A stand-in for the API-key plugin: X-API-Key `alice` and `bob` may write, `reader` may only read, none is anonymous. */
export function testKeysPlugin(): QuarryPlugin {
  return {
    name: 'test-keys',
    apply(runtime) {
      runtime.hooks.auth.tap({ name: 'test-keys', stage: STAGE.AUTHENTICATE }, (request) => {
        const key = request.headers['x-api-key'];
        if (key === 'alice' || key === 'bob') request.principal = { id: `apikey:${key}`, method: 'api-key', canWrite: true };
        else if (key === 'reader') request.principal = { id: 'apikey:reader', method: 'api-key', canWrite: false };
        return undefined;
      });
    },
  };
}

/** Records every finished query (protocol, principal, cache status), e.g. to count background refreshes. */
export function queryLogPlugin(log: Array<{ request: QueryRequest; outcome: QueryOutcome }>): QuarryPlugin {
  return {
    name: 'query-log',
    apply(runtime) {
      runtime.hooks.query.after.tap({ name: 'query-log', stage: STAGE.OBSERVE_LAST }, (request, outcome) => {
        log.push({ request, outcome });
      });
    },
  };
}

/**
 * Holds every internal (background) query at `query.before` until `release()`, so a test can
 * answer several requests from a stale entry before the refresh can replace it, however slow
 * the machine is.
 */
export function internalQueryGate(): QuarryPlugin & { release(): void } {
  let release!: () => void;
  const opened = new Promise<void>((resolve) => { release = resolve; });
  return {
    name: 'internal-query-gate',
    release: () => release(),
    apply(runtime) {
      runtime.hooks.query.before.tapPromise({ name: 'internal-query-gate', stage: STAGE.OBSERVE_LAST }, async (request) => {
        if (request.protocol === 'internal') await opened;
      });
    },
  };
}

/** A setup with the results cache (and the given plugins) as the whole bundle. */
export function cacheSetup(runtimeSection: string, extra: { plugins?: QuarryPlugin[]; flight?: boolean } = {}): RuntimeSetup & { cachePlugin: ResultsCachePlugin } {
  const cachePlugin = createResultsCachePlugin();
  return {
    manifest: cacheManifest(runtimeSection),
    files: CACHE_FILES,
    withQuickstartData: true,
    bundle: [cachePlugin, ...(extra.plugins ?? [])],
    flight: extra.flight,
    cachePlugin,
  };
}

export interface SqlAnswer {
  status: number;
  cache: string | null;
  headers: Headers;
  body: unknown;
}

/** POSTs SQL (text, or JSON with parameters) and reads the JSON answer and its cache headers. */
export async function ask(context: TestRuntime, sql: string, options: { headers?: Record<string, string>; parameters?: unknown[] } = {}): Promise<SqlAnswer> {
  const json = options.parameters !== undefined;
  const response = await fetch(`${context.baseUrl}/v1/sql`, {
    method: 'POST',
    body: json ? JSON.stringify({ sql, parameters: options.parameters }) : sql,
    headers: { accept: 'application/json', ...(json ? { 'content-type': 'application/json' } : {}), ...options.headers },
  });
  return { status: response.status, cache: response.headers.get('x-cache'), headers: response.headers, body: await response.json() };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` holds (background work such as a refresh), failing after `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}
