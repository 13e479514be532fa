/**
 * The runtime pane: readiness, listeners, live figures (queries per second, p95 latency, cache
 * hit ratio, from the runtime's own metrics via /v1/playground/figures) and the last queries of
 * `runtime.task_history` with their durations and cache status.
 */
import { tableFromIPC } from 'apache-arrow';
import { ApiError, call, getJson, sqlArrow } from './api.js';
import { element } from './dom.js';
import { OWN_QUERY_MARK, ownQuery } from './own-queries.js';
import { columnView } from './values.js';
// The route's answer, as the plugin defines it (a type only: nothing of the server is bundled).
import type { LiveFiguresReport } from '../../plugins/playground/live-figures.js';

interface Listener {
  readonly name: string;
  readonly endpoint: string;
  readonly status: string;
}

const RECENT_QUERIES = ownQuery(
  `SELECT start_time, input, execution_duration_ms AS duration_ms, labels['results_cache_status'] AS cache, error_message
   FROM runtime.task_history WHERE task = 'sql_query' AND input NOT LIKE '${OWN_QUERY_MARK}%'
   ORDER BY start_time DESC LIMIT 15`,
);

const figure = (label: string, value: string, test: string) =>
  element('div', { className: 'figure' }, [element('div', { className: 'figure-value', text: value, attributes: { 'data-test': test } }), element('div', { className: 'muted', text: label })]);

export class RuntimePane {
  private timer: number | undefined;

  constructor(private readonly container: HTMLElement) {}

  async start(): Promise<void> {
    window.clearTimeout(this.timer);
    if (document.visibilityState === 'visible') await this.refreshView();
    this.timer = window.setTimeout(() => void this.start(), 5_000);
  }

  private async refreshView(): Promise<void> {
    const [ready, listeners, figures, recent] = await Promise.all([
      readiness(),
      getJson<Listener[]>('/v1/status').catch((error: Error) => error),
      getJson<LiveFiguresReport>('/v1/playground/figures').catch((error: Error) => error),
      recentQueries(),
    ]);
    const sections: (HTMLElement | null)[] = [
      element('h2', { text: 'Runtime' }),
      element('div', { className: `badge ${ready === 'ready' ? 'state-ready' : 'state-error'}`, text: ready, attributes: { 'data-test': 'readiness' } }),
    ];
    if (listeners instanceof Error) sections.push(element('p', { className: 'error-text', text: listeners.message }));
    else sections.push(element('ul', { className: 'listeners' }, listeners.map((listener) => element('li', {}, [
      element('strong', { text: listener.name }),
      element('span', { className: 'muted', text: ` ${listener.endpoint} ` }),
      element('span', { className: `badge state-${listener.status.toLowerCase()}`, text: listener.status }),
    ]))));
    if (figures instanceof Error) sections.push(element('p', { className: 'error-text', text: figures.message }));
    else {
      sections.push(element('div', { className: 'figures' }, [
        figure(`queries/s (last ${figures.window_seconds} s)`, figures.queries_per_second === null ? '–' : figures.queries_per_second.toFixed(2), 'qps'),
        figure('p95 latency', figures.p95_ms === null ? '–' : `${figures.p95_ms.toFixed(1)} ms`, 'p95'),
        figure('cache hit ratio', figures.cache_hit_ratio === null ? '–' : `${(figures.cache_hit_ratio * 100).toFixed(0)} %`, 'hit-ratio'),
      ]));
      if (figures.unavailable.length > 0) sections.push(element('p', { className: 'muted', text: figures.unavailable.join('; ') }));
    }
    sections.push(element('h3', { text: 'Last queries' }), recent);
    this.container.replaceChildren(...sections.filter((node): node is HTMLElement => node !== null));
  }
}

async function readiness(): Promise<string> {
  try {
    await call('/v1/ready');
    return 'ready';
  } catch (error) {
    return error instanceof ApiError ? `not ready (${error.status})` : 'unreachable';
  }
}

async function recentQueries(): Promise<HTMLElement> {
  try {
    const table = tableFromIPC((await sqlArrow(RECENT_QUERIES, { bypassCache: true })).bytes);
    if (table.numRows === 0) return element('p', { className: 'muted', text: 'No queries yet.' });
    const [start, input, duration, cache, error] = [0, 1, 2, 3, 4].map((index) => table.getChildAt(index));
    const startView = columnView(table.schema.fields[0]!);
    const rows = [];
    for (let row = 0; row < table.numRows; row += 1) {
      const failed = error?.get(row);
      rows.push(element('li', { attributes: { 'data-test': 'recent-query' } }, [
        element('code', { text: String(input?.get(row)) }),
        element('div', { className: failed ? 'muted error-text' : 'muted', text: `${startView.format(start?.get(row)).slice(11, 19)} · ${Number(duration?.get(row)).toFixed(1)} ms · cache ${cache?.get(row) ?? 'off'}${failed ? ` · ${String(failed)}` : ''}` }),
      ]));
    }
    return element('ul', { className: 'recent' }, rows);
  } catch (error) {
    return element('p', { className: 'muted', text: `Task history unavailable: ${(error as Error).message}` });
  }
}
