import type { ScanFilter, ScanValue } from '../../../core/engine/sources/connector.js';
import { quoteIdentifier, type PartitionKey, type PartitionValue } from '../partition-keys.js';

/** Buckets of given values for a bucket key (computed by the engine, so the hash is the executors'). */
export type BucketsOf = (key: Extract<PartitionKey, { kind: 'bucket' }>, values: readonly ScanValue[]) => Promise<Set<number> | undefined>;

/**
 * Whether a partition may hold rows a scan's filters want. Conservative: a filter it cannot
 * judge (another column, an expression key, mismatched types) keeps the partition. A plain
 * column key is judged by comparing its value; a bucket key by the buckets of `=` / `IN` values.
 */
export async function partitionFilter(keys: readonly PartitionKey[], filters: readonly ScanFilter[], bucketsOf: BucketsOf): Promise<(values: readonly PartitionValue[]) => boolean> {
  const checks: Array<(values: readonly PartitionValue[]) => boolean> = [];
  for (const [index, key] of keys.entries()) {
    for (const filter of filters) {
      if (key.kind === 'expression' && key.sql === quoteIdentifier(filter.column)) {
        checks.push((values) => mayMatch(values[index] ?? null, filter));
      } else if (key.kind === 'bucket' && key.column === filter.column && (filter.operator === '=' || filter.operator === 'IN')) {
        const wanted = await bucketsOf(key, 'values' in filter ? filter.values : 'value' in filter ? [filter.value] : []);
        if (wanted !== undefined) checks.push((values) => wanted.has(values[index] as number));
      }
    }
  }
  return (values) => checks.every((check) => check(values));
}

function mayMatch(value: PartitionValue, filter: ScanFilter): boolean {
  if (filter.operator === 'IS NULL') return value === null;
  if (filter.operator === 'IS NOT NULL') return value !== null;
  if (value === null) return false; // comparisons with NULL are never true
  if (filter.operator === 'IN') return filter.values.some((candidate) => compare(value, candidate) !== 'unknown' ? compare(value, candidate) === 0 : true);
  if (!('value' in filter)) return true;
  const order = compare(value, filter.value);
  if (order === 'unknown') return true;
  switch (filter.operator) {
    case '=': return order === 0;
    case '<>': return order !== 0;
    case '<': return order < 0;
    case '<=': return order <= 0;
    case '>': return order > 0;
    case '>=': return order >= 0;
  }
}

function compare(value: Exclude<PartitionValue, null>, other: ScanValue): number | 'unknown' {
  if (typeof value === 'number' && (typeof other === 'number' || typeof other === 'bigint')) return Math.sign(value - Number(other));
  if (typeof value === 'string' && typeof other === 'string') return value < other ? -1 : value > other ? 1 : 0;
  if (typeof value === 'boolean' && typeof other === 'boolean') return Number(value) - Number(other);
  return 'unknown';
}
