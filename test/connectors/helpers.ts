import type { LogRecord } from '../../core/log.js';

/** Rows of a JSON result. */
export async function jsonRows(response: Response): Promise<Array<Record<string, unknown>>> {
  const text = await response.text();
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${text}`);
  return JSON.parse(text) as Array<Record<string, unknown>>;
}

/** The dataset list of /v1/datasets by name. */
export async function datasetStatuses(baseUrl: string): Promise<Map<string, { status: string; error?: string }>> {
  const list = (await (await fetch(`${baseUrl}/v1/datasets`)).json()) as Array<{ name: string; status: string; error?: string }>;
  return new Map(list.map((entry) => [entry.name, entry]));
}

/** The fields of every log record with this message. */
export function logFields(logs: readonly LogRecord[], message: string): Array<Record<string, unknown>> {
  return logs.filter((record) => record.message === message).map((record) => record.fields ?? {});
}

export function manifestWith(datasets: string): string {
  return ['version: v2', 'kind: Spicepod', 'name: connectors', 'datasets:', datasets].join('\n');
}
