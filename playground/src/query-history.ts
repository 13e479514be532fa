/** The browser's own query history: the last queries run from this page, kept in local storage. */
import { element } from './dom.js';

const HISTORY_STORAGE = 'quarry.playground.history';
const KEPT = 100;

export interface HistoryEntry {
  readonly sql: string;
  readonly at: string;
  readonly rows?: number;
  readonly milliseconds?: number;
  readonly error?: string;
}

export function loadHistory(): HistoryEntry[] {
  try {
    const entries = JSON.parse(localStorage.getItem(HISTORY_STORAGE) ?? '[]') as HistoryEntry[];
    return Array.isArray(entries) ? entries.filter((entry) => typeof entry.sql === 'string') : [];
  } catch {
    return [];
  }
}

export function remember(entry: HistoryEntry): void {
  const entries = [entry, ...loadHistory().filter((earlier) => earlier.sql !== entry.sql)].slice(0, KEPT);
  localStorage.setItem(HISTORY_STORAGE, JSON.stringify(entries));
}

/** The history list; choosing an entry puts its SQL in the editor. */
export function drawHistory(container: HTMLElement, choose: (sql: string) => void): void {
  const entries = loadHistory();
  if (entries.length === 0) {
    container.replaceChildren(element('p', { className: 'muted', text: 'Queries you run appear here.' }));
    return;
  }
  container.replaceChildren(element('ul', { className: 'history' }, entries.map((entry) => {
    const outcome = entry.error !== undefined ? `error: ${entry.error}` : `${entry.rows ?? 0} rows · ${(entry.milliseconds ?? 0).toFixed(1)} ms`;
    const item = element('li', {}, [
      element('code', { text: entry.sql }),
      element('div', { className: entry.error !== undefined ? 'muted error-text' : 'muted', text: `${new Date(entry.at).toLocaleString()} · ${outcome}` }),
    ]);
    item.addEventListener('click', () => choose(entry.sql));
    return item;
  })));
}
