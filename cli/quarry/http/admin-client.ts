import type { RefreshMode } from '../arguments.js';
import { TransportError } from '../errors.js';
import type { HttpClient } from './http-client.js';
import type { DatasetProgress } from '../render/load-progress.js';

/** One row of `GET /v1/status`: a listener (http, flight, metrics, ...) and its state. */
export interface ComponentStatus {
  name: string;
  endpoint: string;
  status: string;
}

export async function fetchStatus(client: HttpClient): Promise<ComponentStatus[]> {
  const { text } = await client.sendForText('v1/status', { method: 'GET', headers: { accept: 'application/json' } });
  const parsed = parseJson(text, client);
  if (!Array.isArray(parsed)) throw new TransportError(`${client.endpoint.display}/v1/status did not answer a JSON array`);
  return parsed.map((entry: unknown) => {
    const record = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    return { name: textOf(record['name']), endpoint: textOf(record['endpoint']), status: statusText(record['status']) };
  });
}

/** One row of `GET /v1/datasets`, as `quarry status` shows it. */
export interface DatasetRow {
  name: string;
  status: string;
  accelerated: boolean;
  servedFrom: string;
  progress: DatasetProgress | null;
  lastLoad: { rows: number | null; bytes: number | null; duration_ms: number; finished_at: string } | null;
  error: string | null;
}

export async function fetchDatasets(client: HttpClient): Promise<DatasetRow[]> {
  const { text } = await client.sendForText('v1/datasets', { method: 'GET', headers: { accept: 'application/json' } });
  const parsed = parseJson(text, client);
  if (!Array.isArray(parsed)) throw new TransportError(`${client.endpoint.display}/v1/datasets did not answer a JSON array`);
  return parsed.map((entry: unknown) => {
    const record = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    const progress = record['progress'];
    const lastLoad = record['last_load'];
    return {
      name: textOf(record['name']),
      status: statusText(record['status']),
      accelerated: record['acceleration_enabled'] === true,
      servedFrom: typeof record['served_from'] === 'string' ? record['served_from'] : 'N/A',
      progress: typeof progress === 'object' && progress !== null ? (progress as DatasetProgress) : null,
      lastLoad: typeof lastLoad === 'object' && lastLoad !== null ? (lastLoad as DatasetRow['lastLoad']) : null,
      error: typeof record['error'] === 'string' ? record['error'] : null,
    };
  });
}

export interface RefreshOverrides {
  refreshSql: string | undefined;
  refreshMode: RefreshMode | undefined;
}

/** Triggers a refresh; resolves with the runtime's message (`Dataset x refreshed.`). */
export async function refreshDataset(client: HttpClient, dataset: string, overrides: RefreshOverrides): Promise<string> {
  const body: Record<string, string> = {};
  if (overrides.refreshSql !== undefined) body['refresh_sql'] = overrides.refreshSql;
  if (overrides.refreshMode !== undefined) body['refresh_mode'] = overrides.refreshMode;
  const hasBody = Object.keys(body).length > 0;
  const { text } = await client.sendForText(`v1/datasets/${encodeURIComponent(dataset)}/acceleration/refresh`, {
    method: 'POST',
    headers: { accept: 'application/json', ...(hasBody ? { 'content-type': 'application/json' } : {}) },
    ...(hasBody ? { body: JSON.stringify(body) } : {}),
  });
  const parsed = text.trim() === '' ? undefined : parseJson(text, client);
  const message = (parsed as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : `Dataset ${dataset} refresh requested.`;
}

function parseJson(text: string, client: HttpClient): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new TransportError(`${client.endpoint.display} answered something other than JSON: ${text.slice(0, 200)}`);
  }
}

function textOf(value: unknown): string {
  if (value === null || value === undefined || value === '') return 'N/A';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A status is a word (`Ready`), or `{"Error": "message"}` in Spice's shape. */
function statusText(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    const [kind, detail] = Object.entries(value as Record<string, unknown>)[0] ?? [];
    if (kind !== undefined) return detail === undefined || detail === null ? kind : `${kind}: ${textOf(detail)}`;
  }
  return textOf(value);
}
