import { QuarryError } from '../../core/errors/quarry-error.js';
import { quoteIdentifier, toPartitionValue, type PartitionKey, type PartitionValue } from './partition-keys.js';
import './errors.js';

/** Runs a small internal query (the distinct values of the non-bucket keys) and returns its rows. */
export type DistinctQuery = (sql: string) => Promise<Array<Record<string, unknown>>>;

/** A safety bound: a dataset with more partitions than this is refused rather than written into one document. */
export const MAX_PARTITIONS_PER_DATASET = 1_000_000;

/**
 * The partitions of one dataset: `bucket(N, column)` keys give 0..N-1 without reading data;
 * other keys give the distinct values of their expressions (one query), and several keys
 * give the cartesian product. The query must finish within `timeoutMs`.
 */
export async function discoverPartitions(dataset: string, table: string, keys: readonly PartitionKey[], query: DistinctQuery, timeoutMs: number): Promise<PartitionValue[][]> {
  const expressionKeys = keys.map((key, index) => ({ key, index })).filter(({ key }) => key.kind === 'expression');
  let tuples: Array<Map<number, PartitionValue>> = [new Map()];
  if (expressionKeys.length > 0) {
    const columns = expressionKeys.map(({ key, index }) => `${key.sql} AS ${quoteIdentifier(`k${index}`)}`).join(', ');
    const sql = `SELECT DISTINCT ${columns} FROM ${table}`;
    const rows = await withTimeout(query(sql), timeoutMs, dataset);
    tuples = rows.map((row) => new Map(expressionKeys.map(({ index }) => [index, toPartitionValue(row[`k${index}`])])));
  }
  let size = tuples.length;
  for (const key of keys) if (key.kind === 'bucket') size *= key.buckets;
  if (size > MAX_PARTITIONS_PER_DATASET) {
    throw new QuarryError('CLUSTER_CONFIG_INVALID', `dataset "${dataset}": partition_by gives ${size} partitions, more than ${MAX_PARTITIONS_PER_DATASET}; use fewer buckets or coarser expressions`, { details: { dataset } });
  }
  const partitions: PartitionValue[][] = [];
  for (const tuple of tuples) {
    let combinations: PartitionValue[][] = [[]];
    for (const [index, key] of keys.entries()) {
      const values: PartitionValue[] = key.kind === 'bucket' ? Array.from({ length: key.buckets }, (_, bucket) => bucket) : [tuple.get(index) ?? null];
      combinations = combinations.flatMap((prefix) => values.map((value) => [...prefix, value]));
    }
    partitions.push(...combinations);
  }
  return partitions;
}

async function withTimeout<T>(work: Promise<T>, timeoutMs: number, dataset: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new QuarryError('PARTITION_DISCOVERY_TIMEOUT', `dataset "${dataset}": listing its partition values took longer than runtime.scheduler.partition_discovery_timeout (${timeoutMs} ms)`, { details: { dataset } })), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
