import type { DuckDBConnection } from '@duckdb/node-api';
import type { Logger } from '../../log.js';
import { inTransaction, isAccelerated, type DatasetEntry, type RunStatement, type TableRef } from '../dataset-entry.js';
import { LoadProgress, progressFields, rowCountOf } from '../load-progress.js';
import { localFileBytes } from '../source-files.js';
import { quoteQualifiedName } from '../sql-text.js';
import { indexStatements } from './index-statements.js';
import type { RefreshPlan } from './refresh-options.js';
import { appendStatement, dataWindowCondition, keyRules, replaceStatements, sourceSelect } from './refresh-statements.js';

/**
 * One load or refresh of an accelerated dataset (the registry, datasets.ts, decides when):
 * the source brought up to date, its rows written into the acceleration table in one
 * transaction, the progress shown and logged while it runs. And the per-dataset load
 * connections it runs on.
 */

/** How long a connector may take to bring its local mirror up to date before a load. */
export const LOAD_TIMEOUT_MS = 10 * 60_000;
/** Table expressions of text files, whose row figures DuckDB only guesses while it reads them. */
const TEXT_FILE_READER = /^\s*read_(csv|json|ndjson)/i;
/** A running load logs where it is this often at the default level (a 20M-row CSV load must not be a silent minute). */
const PROGRESS_LOG_MS = 5_000;

/** What a load does besides filling the table. */
export interface LoadSteps {
  readonly log: Logger;
  /** After the rows are in: a fetch dataset's staged copy is dropped. */
  afterLoad(dataset: string): Promise<void>;
  /** After the first load: the dataset's retention checks start. */
  startRetention(entry: DatasetEntry): void;
}

/**
 * Each accelerated dataset's own load connection, made before lockdown: DuckDB's progress
 * tracking is a connection setting, and lockdown freezes settings.
 */
export async function openLoadConnections(entries: Iterable<DatasetEntry>, connect: () => Promise<DuckDBConnection>): Promise<void> {
  for (const entry of entries) {
    if (!isAccelerated(entry.config)) continue;
    const connection = await connect();
    await connection.run('SET enable_progress_bar = true');
    // The engine would otherwise draw its bar on the runtime's stdout, into the log.
    await connection.run('SET enable_progress_bar_print = false');
    entry.loadConnection = connection;
  }
}

/** At shutdown: each load connection is closed now, or when the load running on it ends. */
export function closeLoadConnections(entries: Iterable<DatasetEntry>): void {
  for (const entry of entries) {
    const connection = entry.loadConnection;
    if (!connection) continue;
    entry.loadConnection = undefined;
    if (entry.refreshing) void entry.refreshing.catch(() => undefined).finally(() => connection.closeSync());
    else connection.closeSync();
  }
}

/** Shows `progress` as the dataset's while `work` runs, and logs it every few seconds. */
export async function reportProgress(entry: DatasetEntry, progress: LoadProgress, log: Logger, work: () => Promise<void>): Promise<void> {
  entry.progress = progress;
  const message = progress.kind === 'load' ? 'dataset loading' : 'dataset refreshing';
  const timer = setInterval(() => log.info(message, { dataset: entry.config.name, ...progressFields(progress.snapshot()) }), PROGRESS_LOG_MS);
  timer.unref();
  try {
    await work();
  } finally {
    clearInterval(timer);
    entry.progress = undefined;
  }
}

/**
 * One load or refresh, on the dataset's own load connection when it has one (the engine's
 * progress is read from it; `callerRun` otherwise), logging its progress while it runs.
 */
export async function loadDataset(entry: DatasetEntry, callerRun: RunStatement, plan: RefreshPlan, kind: 'load' | 'refresh', steps: LoadSteps): Promise<void> {
  const connection = entry.loadConnection;
  // On its own connection a load reads each statement's Count: the rows it wrote.
  const written = { rows: connection ? 0 : undefined };
  const fillRun: RunStatement = connection
    ? async (sql) => {
        written.rows! += rowCountOf(await connection.runAndReadAll(sql));
      }
    : callerRun;
  const run: RunStatement = connection ? (sql) => connection.run(sql).then(() => undefined) : callerRun;
  // The files' size is read when the engine starts on them: a mirror's are complete only then.
  const progress = new LoadProgress(kind, () => connection?.progress, () => (entry.fetched ? undefined : localFileBytes(entry.source!)), {
    engineCountsRows: !TEXT_FILE_READER.test(entry.source!.tableExpression),
  });
  await reportProgress(entry, progress, steps.log, async () => {
    await loadWith(entry, { run, fillRun }, plan, progress, steps);
    entry.lastLoad = progress.finished(written.rows);
    steps.log.info('dataset loaded', {
      dataset: entry.config.name,
      from: entry.config.from,
      accelerated: true,
      refresh_mode: plan.mode,
      ...(entry.lastLoad.rows === null ? {} : { rows: entry.lastLoad.rows }),
      ...(entry.lastLoad.bytes === null ? {} : { bytes: entry.lastLoad.bytes }),
      ms: entry.lastLoad.duration_ms,
    });
  });
}

async function loadWith(entry: DatasetEntry, runs: { run: RunStatement; fillRun: RunStatement }, plan: RefreshPlan, progress: LoadProgress, steps: LoadSteps): Promise<void> {
  const { run, fillRun } = runs;
  await entry.source!.synchronise?.(AbortSignal.timeout(LOAD_TIMEOUT_MS), progress.sink());
  progress.reading();
  const table = entry.accelerationTable!;
  const view = quoteQualifiedName(entry.config.name);
  if (entry.viewReadsTable) {
    // A refresh, in one transaction: queries see the old rows or the new, never a mix.
    await inTransaction(run, () => fill(entry, fillRun, table, { mode: plan.mode === 'append' ? 'append' : 'replace', refreshSql: plan.refreshSql, orderBy: plan.orderBy }));
  } else if (entry.config.acceleration?.mode !== 'file') {
    // First load in memory mode: the live view becomes the table in one transaction.
    await inTransaction(run, async () => {
      await run(`DROP VIEW IF EXISTS ${view}`);
      await fill(entry, fillRun, table, { mode: 'create', refreshSql: plan.refreshSql, orderBy: plan.orderBy });
    });
  } else {
    // First load in file mode: DuckDB cannot write two databases in one transaction, so
    // the table is filled first and the view (serving the source until then) repointed.
    await inTransaction(run, () => fill(entry, fillRun, table, { mode: 'replace', refreshSql: plan.refreshSql, orderBy: plan.orderBy }));
    await run(`CREATE OR REPLACE VIEW ${view} AS SELECT * FROM ${table.sql}`);
  }
  await steps.afterLoad(entry.config.name);
  if (!entry.viewReadsTable) steps.startRetention(entry);
  entry.viewReadsTable = true;
  entry.state = 'ready';
  entry.error = undefined;
  entry.loadedAt = new Date().toISOString();
}

/**
 * The one place a dataset's source is read: fills `target` with the source's rows
 * (`refresh_sql` applied), creating it, replacing its rows, or appending the new ones.
 * Runs inside the caller's transaction.
 */
async function fill(entry: DatasetEntry, run: RunStatement, target: TableRef, options: { mode: 'create' | 'replace' | 'append'; refreshSql: string | undefined; orderBy: string | undefined }): Promise<void> {
  const select = sourceSelect(entry.config.name, entry.source!.tableExpression, options.refreshSql, dataWindowCondition(entry.config, new Date()));
  const rules = keyRules(entry.config);
  const statements = options.mode === 'append'
    ? [appendStatement({ table: target.sql, select, rules, timeColumn: entry.config.time_column, timeFormat: entry.config.time_format })]
    : [...replaceStatements(target.sql, select, rules, { orReplace: options.mode === 'replace', orderBy: options.orderBy }), ...indexStatements(entry.config, target)];
  for (const statement of statements) await run(statement);
}
