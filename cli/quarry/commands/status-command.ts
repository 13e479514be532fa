import { setTimeout as sleep } from 'node:timers/promises';
import type { ConnectionOptions } from '../arguments.js';
import { requireHttpEndpoint } from '../endpoint.js';
import { EXIT_OK, describeError } from '../errors.js';
import { fetchDatasets, fetchStatus, type DatasetRow } from '../http/admin-client.js';
import type { HttpClient } from '../http/http-client.js';
import { writeTo, type CliIo } from '../output.js';
import { escapeControlCharacters } from '../render/box-table.js';
import { bytes, describeProgress, seconds } from '../render/load-progress.js';
import { renderPlainTable } from '../render/plain-table.js';
import { createHttpClient } from '../transport/create-transport.js';

/** How often `--watch` redraws. */
const WATCH_INTERVAL_MS = 1000;

/**
 * `quarry status`: the runtime's listeners (`GET /v1/status`) and its datasets (`GET
 * /v1/datasets`), a running load as a progress bar. `--watch` redraws every second until
 * Ctrl-C: in place on a terminal, one frame after another in a pipe.
 */
export async function runStatusCommand(connection: ConnectionOptions, io: CliIo, options: { watch?: boolean } = {}): Promise<number> {
  requireHttpEndpoint(connection.endpoint, 'status');
  const client = createHttpClient(connection);
  try {
    if (!options.watch) {
      await writeTo(io.stdout, await statusText(client));
      return EXIT_OK;
    }
    return await watch(client, io);
  } finally {
    client.close();
  }
}

async function watch(client: HttpClient, io: CliIo): Promise<number> {
  const stop = new AbortController();
  const onInterrupt = () => stop.abort();
  process.once('SIGINT', onInterrupt);
  process.once('SIGTERM', onInterrupt);
  try {
    while (!stop.signal.aborted) {
      // Unreachable for a moment (a restart): the frame says so and the watch goes on.
      const frame = await statusText(client).catch((error: unknown) => `${describeError(error)}\n`);
      const time = new Date().toISOString().slice(11, 19);
      const heading = io.stdout.isTTY ? `\u001b[H\u001b[2JEvery ${WATCH_INTERVAL_MS / 1000}s: quarry status (Ctrl-C to stop)  ${time}\n\n` : `--- ${time} ---\n`;
      await writeTo(io.stdout, `${heading}${frame}${io.stdout.isTTY ? '' : '\n'}`);
      await sleep(WATCH_INTERVAL_MS, undefined, { signal: stop.signal }).catch(() => undefined);
    }
    return EXIT_OK;
  } finally {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
  }
}

async function statusText(client: HttpClient): Promise<string> {
  const [components, datasets] = await Promise.all([fetchStatus(client), fetchDatasets(client)]);
  const listeners = renderPlainTable(['NAME', 'ENDPOINT', 'STATUS'], components.map((component) => [component.name, component.endpoint, component.status].map(escapeControlCharacters)));
  if (datasets.length === 0) return listeners;
  const rows = datasets.map((dataset) => [dataset.name, dataset.status, dataset.accelerated ? 'yes' : 'no', loadColumn(dataset)].map(escapeControlCharacters));
  return `${listeners}\n${renderPlainTable(['DATASET', 'STATUS', 'ACCELERATED', 'LOAD'], rows)}`;
}

/** What the dataset's load is doing: a bar while it runs, the last one's figures after, `live` when it is not accelerated. */
function loadColumn(dataset: DatasetRow): string {
  if (dataset.progress) return `${describeProgress(dataset.progress)}${dataset.servedFrom === 'source' ? '  (queries answered by the source meanwhile)' : ''}`;
  if (dataset.status.startsWith('Error')) return dataset.error ?? '';
  if (!dataset.accelerated) return 'live';
  const last = dataset.lastLoad;
  if (!last) return dataset.servedFrom === 'source' ? 'not loaded yet (queries answered by the source)' : '';
  const figures = [last.rows === null ? undefined : `${last.rows.toLocaleString('en-US')} rows`, last.bytes === null ? undefined : bytes(last.bytes)].filter((part) => part !== undefined);
  return `loaded ${figures.join(', ')}${figures.length > 0 ? ' ' : ''}in ${seconds(last.duration_ms / 1000)} at ${last.finished_at.slice(11, 19)}`;
}
