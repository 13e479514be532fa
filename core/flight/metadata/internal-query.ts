import type { RecordBatch, Schema } from 'apache-arrow';
import type { Engine } from '../../engine/engine.js';

/**
 * The runtime's own read-only queries (catalog listings, schema probes). They go to the
 * engine directly, not through the pipeline: they are not user SQL, so no statement
 * policy, cache, task history or `query.*` hooks apply. Only SELECTs are ever sent here.
 */
export async function internalQuery(engine: Engine, sql: string, parameters: readonly unknown[] = []): Promise<{ schema: Schema; batches: RecordBatch[] }> {
  const prepared = await engine.prepare(sql);
  if (prepared.kind !== 'read') {
    prepared.close();
    throw new Error(`internal metadata queries must be reads, got ${prepared.statementType}`);
  }
  const stream = await prepared.execute(parameters, new AbortController().signal);
  const batches: RecordBatch[] = [];
  for await (const batch of stream.batches) batches.push(batch);
  return { schema: stream.schema, batches };
}

/** Rows as plain objects (column name → JS value); for small metadata results only. */
export async function internalRows(engine: Engine, sql: string, parameters: readonly unknown[] = []): Promise<Array<Record<string, unknown>>> {
  const { batches } = await internalQuery(engine, sql, parameters);
  const rows: Array<Record<string, unknown>> = [];
  for (const batch of batches) {
    for (const row of batch) rows.push(row.toJSON() as Record<string, unknown>);
  }
  return rows;
}

/** The Arrow schema a query would produce, without reading its rows (LIMIT 0 over it). */
export async function schemaOfRelation(engine: Engine, qualifiedName: string): Promise<Schema> {
  const { schema } = await internalQuery(engine, `SELECT * FROM ${qualifiedName} LIMIT 0`);
  return schema;
}
