/**
 * The datasets sidebar: every dataset (state, load progress, acceleration, last refresh) and
 * view, with columns and types; a refresh button on accelerated datasets when the caller may
 * write. The same columns feed the editor's completion.
 */
import { tableFromIPC } from 'apache-arrow';
import type { SQLNamespace } from '@codemirror/lang-sql';
import { call, getJson, sqlArrow } from './api.js';
import { element } from './dom.js';
import { ownQuery } from './own-queries.js';

interface LoadProgress {
  readonly kind: string;
  readonly phase: string;
  readonly percent: number | null;
  readonly rows_read: number | null;
  readonly bytes_read: number | null;
  readonly eta_seconds: number | null;
}

interface DatasetRow {
  readonly name: string;
  readonly from: string;
  readonly description: string | null;
  readonly status: string;
  readonly error: string | null;
  readonly acceleration_enabled: boolean;
  readonly acceleration: { engine: string; mode: string; refresh_check_interval: string | null } | null;
  readonly loaded_at: string | null;
  readonly progress: LoadProgress | null;
  readonly last_load: { kind: string; finished_at: string; duration_ms: number; rows: number | null } | null;
}

export interface PlaygroundContext {
  readonly may_write: boolean;
  readonly principal: string;
  readonly views: readonly { name: string; description: string | null }[];
}

export interface Column {
  readonly name: string;
  readonly type: string;
}

/** Table columns by `schema.table` (and by bare name for the default schema). */
async function loadColumns(): Promise<Map<string, Column[]>> {
  const answer = await sqlArrow(ownQuery(
    "SELECT table_schema, table_name, column_name, data_type FROM information_schema.columns WHERE table_schema IN ('main', 'runtime') ORDER BY table_schema, table_name, ordinal_position",
  ), { bypassCache: true });
  const table = tableFromIPC(answer.bytes);
  const columns = new Map<string, Column[]>();
  const [schemas, tables, names, types] = [0, 1, 2, 3].map((index) => table.getChildAt(index));
  for (let row = 0; row < table.numRows; row += 1) {
    const schema = String(schemas?.get(row));
    const key = schema === 'main' ? String(tables?.get(row)) : `${schema}.${String(tables?.get(row))}`;
    const list = columns.get(key) ?? [];
    list.push({ name: String(names?.get(row)), type: String(types?.get(row)) });
    columns.set(key, list);
  }
  return columns;
}

const ago = (iso: string) => {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (seconds < 90) return `${seconds} s ago`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min ago`;
  return new Date(iso).toLocaleString();
};

function progressLine(progress: LoadProgress): HTMLElement {
  const parts = [`${progress.kind} ${progress.phase}`];
  if (progress.rows_read !== null) parts.push(`${progress.rows_read.toLocaleString()} rows`);
  if (progress.eta_seconds !== null) parts.push(`~${Math.ceil(progress.eta_seconds)} s left`);
  const bar = element('progress', { attributes: { max: '100', 'aria-label': 'load progress' } });
  if (progress.percent !== null) bar.value = progress.percent;
  return element('div', { className: 'progress' }, [bar, element('span', { className: 'muted', text: parts.join(' · ') })]);
}

/** The columns, folded: the dataset's state stays in view, its columns open on a click. */
function columnList(columns: readonly Column[] | undefined): HTMLElement {
  if (columns === undefined) return element('div', { className: 'muted', text: 'columns not known yet' });
  return element('details', { className: 'columns' }, [
    element('summary', { className: 'muted', text: `${columns.length} column${columns.length === 1 ? '' : 's'}` }),
    element('ul', {}, columns.map((column) => element('li', {}, [element('span', { text: column.name }), element('span', { className: 'column-type', text: column.type })]))),
  ]);
}

export class CatalogPanel {
  private timer: number | undefined;
  /** What a refresh button reports (tests and the status line read it). */
  onMessage: (text: string, isError: boolean) => void = () => {};

  constructor(
    private readonly container: HTMLElement,
    private readonly onSchema: (schema: SQLNamespace) => void,
  ) {}

  /** Loads everything, then polls: every second while a dataset loads, every 15 s otherwise. */
  async start(): Promise<void> {
    window.clearTimeout(this.timer);
    let busy = false;
    try {
      busy = await this.refreshView();
    } catch (error) {
      this.container.replaceChildren(element('p', { className: 'error-text', text: `Datasets unavailable: ${(error as Error).message}` }));
    }
    this.timer = window.setTimeout(() => void this.start(), busy ? 1_000 : 15_000);
  }

  private async refreshView(): Promise<boolean> {
    const [datasets, context, columns] = await Promise.all([getJson<DatasetRow[]>('/v1/datasets'), getJson<PlaygroundContext>('/v1/playground/context'), loadColumns()]);
    const schema: SQLNamespace = {};
    for (const [name, list] of columns) schema[name] = list.map((column) => ({ label: column.name, type: 'property', detail: column.type }));
    this.onSchema(schema);
    const sections = [
      element('h2', { text: `Datasets (${datasets.length})` }),
      ...datasets.map((dataset) => this.datasetEntry(dataset, columns.get(dataset.name), context.may_write)),
    ];
    if (context.views.length > 0) {
      sections.push(element('h2', { text: `Views (${context.views.length})` }));
      for (const view of context.views) {
        sections.push(element('div', { className: 'dataset', attributes: { 'data-view': view.name } }, [
          element('div', { className: 'dataset-head' }, [element('strong', { text: view.name })]),
          view.description ? element('div', { className: 'muted', text: view.description }) : null,
          columnList(columns.get(view.name)),
        ]));
      }
    }
    // Keep which entries were open across polls.
    const owner = (node: Element) => node.closest('[data-dataset], [data-view]');
    const nameOf = (node: Element) => owner(node)?.getAttribute('data-dataset') ?? `view:${owner(node)?.getAttribute('data-view')}`;
    const open = new Set(Array.from(this.container.querySelectorAll('details[open]')).map(nameOf));
    this.container.replaceChildren(...sections);
    for (const node of this.container.querySelectorAll('details')) if (open.has(nameOf(node))) node.open = true;
    return datasets.some((dataset) => dataset.progress !== null || dataset.status === 'Initializing' || dataset.status === 'Refreshing');
  }

  private datasetEntry(dataset: DatasetRow, columns: readonly Column[] | undefined, mayWrite: boolean): HTMLElement {
    const acceleration = dataset.acceleration_enabled && dataset.acceleration !== null ? `accelerated · ${dataset.acceleration.engine} ${dataset.acceleration.mode}` : 'live from source';
    const refreshed = dataset.last_load !== null
      ? `last ${dataset.last_load.kind} ${ago(dataset.last_load.finished_at)} (${dataset.last_load.rows?.toLocaleString() ?? '?'} rows, ${dataset.last_load.duration_ms} ms)`
      : dataset.loaded_at !== null ? `ready ${ago(dataset.loaded_at)}` : '';
    let refresh: HTMLElement | null = null;
    if (dataset.acceleration_enabled && mayWrite) {
      const button = element('button', { text: 'Refresh', attributes: { type: 'button', 'data-test': `refresh-${dataset.name}` } });
      button.addEventListener('click', (event) => {
        event.preventDefault();
        void this.refreshDataset(dataset.name, button);
      });
      refresh = button;
    }
    return element('div', { className: 'dataset', attributes: { 'data-dataset': dataset.name } }, [
      element('div', { className: 'dataset-head' }, [
        element('strong', { text: dataset.name }),
        element('span', { className: `badge state-${dataset.status.toLowerCase()}`, text: dataset.status }),
      ]),
      element('div', { className: 'muted', text: `${dataset.from} · ${acceleration}` }),
      refreshed ? element('div', { className: 'muted', text: refreshed }) : null,
      dataset.error ? element('div', { className: 'error-text', text: dataset.error }) : null,
      dataset.progress ? progressLine(dataset.progress) : null,
      refresh,
      columnList(columns),
    ]);
  }

  private async refreshDataset(name: string, button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    button.textContent = 'Refreshing…';
    try {
      const response = await call(`/v1/datasets/${encodeURIComponent(name)}/acceleration/refresh`, { method: 'POST' });
      const body = (await response.json()) as { message?: string };
      this.onMessage(body.message ?? `Dataset ${name} refreshed.`, false);
    } catch (error) {
      this.onMessage(`Refresh of ${name} failed: ${(error as Error).message}`, true);
    } finally {
      await this.start();
    }
  }
}
