/**
 * The playground page: wires the editor, results (table, chart, history), the datasets sidebar,
 * the runtime pane and the API-key prompt. Every request goes to the runtime that served the
 * page; nothing is fetched from anywhere else (the page's CSP forbids it).
 */
import './style.css';
import { tableFromIPC, type Table } from 'apache-arrow';
import { ApiError, onUnauthorized, sqlArrow, storeApiKey, storedApiKey } from './api.js';
import { CatalogPanel } from './catalog.js';
import { ChartPanel } from './chart-panel.js';
import { byId } from './dom.js';
import { SqlEditor } from './editor.js';
import { saveResult, type ExportFormat } from './exports.js';
import { drawHistory, remember } from './query-history.js';
import { ResultsTable } from './results-table.js';
import { RuntimePane } from './runtime-pane.js';

const nonce = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? '';
const status = byId<HTMLDivElement>('status');
const results = new ResultsTable(byId('results'));
const chart = new ChartPanel(byId('chart'));
const runButton = byId<HTMLButtonElement>('run');
const bypassCache = byId<HTMLInputElement>('bypass-cache');
let current: { table: Table; bytes: Uint8Array } | undefined;
let running: AbortController | undefined;

function say(text: string, kind: 'info' | 'error' = 'info'): void {
  status.textContent = text;
  status.className = kind === 'error' ? 'status error-text' : 'status';
}

async function run(sql: string): Promise<void> {
  running?.abort();
  const controller = new AbortController();
  running = controller;
  runButton.textContent = 'Cancel ■';
  say('Running…');
  try {
    const answer = await sqlArrow(sql, { bypassCache: bypassCache.checked, signal: controller.signal });
    const table = tableFromIPC(answer.bytes);
    current = { table, bytes: answer.bytes };
    results.show(table);
    chart.show(table);
    const cache = answer.cache === null ? '' : ` · x-cache ${answer.cache}`;
    say(`${table.numRows.toLocaleString()} rows · ${answer.milliseconds.toFixed(1)} ms${cache}`);
    status.dataset['rows'] = String(table.numRows);
    remember({ sql, at: new Date().toISOString(), rows: table.numRows, milliseconds: answer.milliseconds });
  } catch (error) {
    if (controller.signal.aborted) {
      // Cancelled by the button, or replaced by a newer run (which says its own status).
      if (running === controller) say('Cancelled: the runtime stops the query when the connection closes.');
      return;
    }
    const message = error instanceof ApiError ? `${error.code}: ${error.message}` : (error as Error).message;
    say(message, 'error');
    remember({ sql, at: new Date().toISOString(), error: message });
  } finally {
    if (running === controller) {
      running = undefined;
      runButton.textContent = 'Run ▶';
    }
    drawHistory(byId('history'), (text) => editor.setText(text));
  }
}

const editor = new SqlEditor(byId('editor'), byId('tabs'), (sql) => void run(sql), nonce);
runButton.addEventListener('click', () => {
  if (running !== undefined) {
    running.abort();
    return;
  }
  const statement = editor.statementToRun();
  if (statement === undefined) say('Nothing to run: the editor holds no statement.', 'error');
  else void run(statement);
});

// Results views: the table, the chart, the browser's history.
for (const button of document.querySelectorAll<HTMLButtonElement>('[data-view]')) {
  button.addEventListener('click', () => {
    for (const other of document.querySelectorAll<HTMLButtonElement>('[data-view]')) other.classList.toggle('active', other === button);
    for (const panel of document.querySelectorAll<HTMLElement>('.view')) panel.hidden = panel.id !== button.dataset['view'];
  });
}
for (const button of document.querySelectorAll<HTMLButtonElement>('[data-export]')) {
  button.addEventListener('click', () => {
    if (current === undefined) say('Run a query first: there is no result to save.', 'error');
    else saveResult(button.dataset['export'] as ExportFormat, current.table, current.bytes);
  });
}
drawHistory(byId('history'), (text) => editor.setText(text));

// Sidebar and runtime pane.
const catalog = new CatalogPanel(byId('datasets'), (schema) => editor.setSchema(schema));
catalog.onMessage = (text, isError) => say(text, isError ? 'error' : 'info');
const runtimePane = new RuntimePane(byId('runtime'));

// API keys: asked for when the runtime answers 401; kept in session storage only.
const login = byId<HTMLDialogElement>('login');
const loginError = byId<HTMLParagraphElement>('login-error');
const keyInput = byId<HTMLInputElement>('api-key');
const keyButton = byId<HTMLButtonElement>('key-button');
function drawKeyButton(): void {
  keyButton.textContent = storedApiKey() === null ? 'API key…' : 'Forget key';
}
onUnauthorized((error) => {
  // A client certificate is the browser's business (its certificate store), not a key to type.
  if (error.code.startsWith('CLIENT_CERTIFICATE')) {
    say(`${error.code}: ${error.message}. Install a client certificate this runtime trusts in the browser.`, 'error');
    return;
  }
  // The page's calls run side by side: the first refusal opens the prompt, the others say the same.
  if (login.open) return;
  loginError.textContent = storedApiKey() === null ? 'This runtime requires an API key.' : `The key was refused (${error.code}: ${error.message}).`;
  login.showModal();
  keyInput.focus();
});
byId<HTMLFormElement>('login-form').addEventListener('submit', (event) => {
  event.preventDefault();
  storeApiKey(keyInput.value.trim() || null);
  keyInput.value = '';
  login.close();
  drawKeyButton();
  void start();
});
keyButton.addEventListener('click', () => {
  if (storedApiKey() !== null) {
    storeApiKey(null);
    drawKeyButton();
    say('The key is forgotten.');
  } else {
    loginError.textContent = '';
    login.showModal();
  }
});
drawKeyButton();

async function start(): Promise<void> {
  await Promise.all([catalog.start(), runtimePane.start()]);
}
void start();
editor.focus();

// For the browser tests: how many result rows exist in the DOM, and the chart drawn.
Object.assign(window, { quarryPlayground: { renderedRows: () => results.renderedRowCount(), chart: () => chart.current() } });
