import type { KeyRules } from '../../../core/engine/acceleration/refresh-statements.js';
import type { PartitionedDataset } from '../cluster-config.js';
import { partitionsPredicate, quoteIdentifier, type PartitionValue } from '../partition-keys.js';

/** The column of an executor's write table that orders written rows: the write's place in the log (1, 2, ...). */
export const WRITE_ORDER_COLUMN = 'quarry_write_order';

/** Where an executor stages the written rows of a share while it loads it: schema and table. */
export function writeTableParts(dataset: PartitionedDataset): { schema: string; name: string } {
  return { schema: 'quarry_cluster', name: `writes_${dataset.name.replaceAll('.', '__')}` };
}

/** The same, as SQL. */
export function writeTableName(dataset: PartitionedDataset): string {
  const { schema, name } = writeTableParts(dataset);
  return `${schema}.${quoteIdentifier(name)}`;
}

/** The rows of the partitions an executor owns, from the source alone (no accepted writes). */
export function ownedRowsSql(dataset: PartitionedDataset, partitions: readonly (readonly PartitionValue[])[]): string {
  return `SELECT * FROM ${dataset.table} WHERE ${partitionsPredicate(dataset.keys, partitions)}`;
}

/**
 * The `refresh_sql` of an executor's share: the source's rows of its partitions plus the rows
 * accepted by writes (staged in `writeTable` with their order in the log), one load, so the
 * table swaps to both at once. Without a primary key every written row is kept. With one, a
 * key keeps one row: `on_conflict: upsert` → the latest write of it wins over earlier writes
 * and the source; otherwise (`drop`, or none: a conflicting write was refused when it was made)
 * the first wins: the source's row, then the earliest write.
 */
export function ownedRowsWithWritesSql(dataset: PartitionedDataset, partitions: readonly (readonly PartitionValue[])[], writeTable: string, rules: KeyRules): string {
  const order = quoteIdentifier(WRITE_ORDER_COLUMN);
  const predicate = partitionsPredicate(dataset.keys, partitions);
  // A log entry holds one executor's rows of one write, for the partitions it owned then; after
  // a rebalancing some of them belong to another executor, which loads the entry too: each
  // takes only the rows of its own partitions.
  const union = `SELECT *, CAST(0 AS BIGINT) AS ${order} FROM ${dataset.table} WHERE ${predicate} UNION ALL BY NAME SELECT * FROM ${writeTable} WHERE ${predicate}`;
  if (rules.primaryKey.length === 0) return `SELECT * EXCLUDE (${order}) FROM (${union}) AS owned_rows`;
  const key = rules.primaryKey.map(quoteIdentifier).join(', ');
  const direction = rules.onConflict === 'upsert' ? 'DESC' : 'ASC';
  return `SELECT * EXCLUDE (${order}) FROM (${union}) AS owned_rows QUALIFY row_number() OVER (PARTITION BY ${key} ORDER BY ${order} ${direction}) = 1`;
}
