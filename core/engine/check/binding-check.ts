import type { DuckDBConnection } from '@duckdb/node-api';
import { DuckDBInstance } from '../duckdb-api.js';
import { createLogger } from '../../log.js';
import type { ManifestProblem } from '../../manifest/issues.js';
import type { Manifest } from '../../manifest/types.js';
import { closestMatch } from '../../text/did-you-mean.js';
import { indexColumns } from '../acceleration/index-statements.js';
import { sourceSelect } from '../acceleration/refresh-statements.js';
import { retentionCondition } from '../acceleration/retention.js';
import { columnDefinitions } from '../fetch/duckdb-column-types.js';
import type { DatasetSource } from '../sources/connector.js';
import { quoteIdentifier, quoteQualifiedName } from '../sql-text.js';
import { ManifestViews } from '../views.js';
import type { OfflineCheck } from './offline-check.js';

/** What the binding check found, and the datasets whose columns it could not know without the network. */
export interface BindingReport {
  readonly problems: ManifestProblem[];
  /** Datasets read over the network (a database, a bucket, an HTTP API): their SQL and columns were not checked. */
  readonly unchecked: string[];
}

/** One schema question to a local source (a SQLite file) may take this long in a check. */
const SCHEMA_TIMEOUT_MS = 30_000;

/**
 * `quarryd --check`'s second half: what start-up would find once sources give their columns,
 * found without the network. Each dataset whose columns are local (files, DuckDB and SQLite
 * databases) is registered in a scratch in-memory engine as start-up registers it; then the
 * columns the manifest names (`time_column`, `primary_key`, `indexes`), every `refresh_sql`
 * (bound as the refresh runs it), every `retention_sql` condition and every view are bound
 * against them. SQL reading a dataset
 * whose columns need the network is left unchecked and listed as such, never guessed. Last,
 * the `check` hook lets plugins bind what they create at start-up on the same scratch engine.
 */
export async function bindingProblems(manifest: Manifest, sources: ReadonlyMap<number, DatasetSource>, plugins: (check: OfflineCheck) => Promise<void> = async () => undefined): Promise<BindingReport> {
  const instance = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
  const connection = await instance.connect();
  const problems: ManifestProblem[] = [];
  const unchecked: string[] = [];
  const known = new Map<string, { index: number; columns: string[] }>();
  try {
    for (const [index, dataset] of manifest.datasets.entries()) {
      const source = sources.get(index);
      if (!source) continue; // its source is already reported
      const local = source.kind === 'engine' ? source.synchronise === undefined : source.offlineSchema === true;
      if (!local) {
        unchecked.push(dataset.name);
        continue;
      }
      try {
        await register(connection, dataset.name, source);
        const described = (await connection.runAndReadAll(`DESCRIBE ${quoteQualifiedName(dataset.name)}`)).getRowObjectsJS();
        known.set(dataset.name.toLowerCase(), { index, columns: described.map((row) => String(row['column_name'])) });
      } catch (error) {
        problems.push({ path: `datasets[${index}].from`, message: `dataset "${dataset.name}" cannot be read: ${firstLine(error)}` });
      }
    }
    for (const [name, { index, columns }] of known) {
      const dataset = manifest.datasets[index]!;
      problems.push(...namedColumnProblems(dataset, index, columns));
      const acceleration = dataset.acceleration?.enabled === true ? dataset.acceleration : undefined;
      if (acceleration?.refresh_sql !== undefined) {
        const problem = await bindProblem(connection, sourceSelect(dataset.name, quoteQualifiedName(dataset.name), acceleration.refresh_sql), known, manifest);
        if (problem) problems.push({ path: `datasets[${index}].acceleration.refresh_sql`, message: `dataset "${name}": refresh_sql does not bind: ${problem}` });
      }
      // Its condition, as the retention check deletes by it (a statement of another shape is a manifest rule's error).
      const condition = acceleration?.retention_sql === undefined ? undefined : retentionCondition(dataset.name, acceleration.retention_sql);
      if (condition !== undefined) {
        const problem = await bindProblem(connection, `SELECT * FROM ${quoteQualifiedName(dataset.name)} WHERE ${condition}`, known, manifest);
        if (problem) problems.push({ path: `datasets[${index}].acceleration.retention_sql`, message: `dataset "${name}": retention_sql does not bind: ${problem}` });
      }
    }
    problems.push(...(await viewProblems(connection, manifest, known)));
    // Then what plugins create at start-up (user functions), against the same datasets and views.
    await plugins({
      run: async (sql) => {
        await connection.run(sql);
      },
      readsUnchecked: (error) => readsUnknown(error, known, manifest),
      report: (path, message) => problems.push({ path, message }),
    });
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  return { problems, unchecked };
}

/** The dataset as start-up registers it: a view over its source (typed from the source's columns for a fetch source). */
async function register(connection: DuckDBConnection, name: string, source: DatasetSource): Promise<void> {
  if (name.includes('.')) await connection.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(name.split('.')[0]!)}`);
  if (source.kind === 'engine') {
    for (const statement of source.setupStatements ?? []) await connection.run(statement);
    await connection.run(`CREATE VIEW ${quoteQualifiedName(name)} AS SELECT * FROM ${source.tableExpression}`);
    return;
  }
  const schema = await source.schema(AbortSignal.timeout(SCHEMA_TIMEOUT_MS));
  await connection.run(`CREATE TABLE ${quoteQualifiedName(name)} (${columnDefinitions(schema, name)})`);
}

/** `time_column`, `primary_key` and index columns the dataset does not have. */
function namedColumnProblems(dataset: Manifest['datasets'][number], index: number, columns: readonly string[]): ManifestProblem[] {
  const have = new Set(columns.map((column) => column.toLowerCase()));
  const problems: ManifestProblem[] = [];
  const check = (path: string, column: string, what: string) => {
    if (have.has(column.toLowerCase())) return;
    const suggestion = closestMatch(column, columns);
    problems.push({ path, message: `dataset "${dataset.name}" has no column "${column}" for its ${what}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; its columns: ${columns.join(', ')}` });
  };
  if (dataset.time_column !== undefined) check(`datasets[${index}].time_column`, dataset.time_column, 'time_column');
  const acceleration = dataset.acceleration;
  for (const column of acceleration?.primary_key === undefined ? [] : [acceleration.primary_key].flat()) check(`datasets[${index}].acceleration.primary_key`, column, 'primary_key');
  for (const key of Object.keys(acceleration?.indexes ?? {})) {
    for (const column of indexColumns(key)) check(`datasets[${index}].acceleration.indexes.${key}`, column, `index "${key}"`);
  }
  return problems;
}

/** Binds `sql` without running it; undefined when it binds or reads a dataset whose columns are not known offline. */
async function bindProblem(connection: DuckDBConnection, sql: string, known: ReadonlyMap<string, unknown>, manifest: Manifest): Promise<string | undefined> {
  try {
    const prepared = await connection.prepare(sql);
    prepared.destroySync();
    return undefined;
  } catch (error) {
    return readsUnknown(error, known, manifest) ? undefined : firstLine(error);
  }
}

/** Views bound in rounds as start-up creates them; a view reading a dataset not known offline is left alone. */
async function viewProblems(connection: DuckDBConnection, manifest: Manifest, known: ReadonlyMap<string, unknown>): Promise<ManifestProblem[]> {
  if (manifest.views.length === 0) return [];
  const views = new ManifestViews(manifest.views, { log: createLogger({ sink: () => undefined }), datasetNames: () => manifest.datasets.map((dataset) => dataset.name) });
  await views.create(connection, (dataset) => known.has(dataset.toLowerCase()), () => undefined);
  return views.statuses().flatMap((view, index) => {
    if (view.state !== 'error' || view.error === undefined) return [];
    return [{ path: `views[${index}].sql`, message: `view "${view.name}" does not bind: ${view.error.split('\n')[0]}` }];
  });
}

/** Whether the engine's error is about a dataset that was not registered here (its columns need the network). */
function readsUnknown(error: unknown, known: ReadonlyMap<string, unknown>, manifest: Manifest): boolean {
  const message = error instanceof Error ? error.message : String(error);
  const missing = /Table with name ([^\s]+) does not exist/i.exec(message)?.[1]?.toLowerCase();
  return missing !== undefined && manifest.datasets.some((dataset) => dataset.name.toLowerCase().split('.').pop() === missing && !known.has(dataset.name.toLowerCase()));
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}
