import { QuarryError } from '../../core/errors/quarry-error.js';
import './errors.js';

/** The largest `bucket(N, column)`: beyond it a cluster document would not fit in one object. */
export const MAX_BUCKETS = 1_000_000;

/**
 * One key of `acceleration.partition_by`. A bucket key partitions by a stable hash of a column
 * (DuckDB's `hash()`, the same in every process of one release, so every node computes the
 * same bucket for a row); an expression key partitions by its distinct values.
 */
export type PartitionKey =
  | { readonly kind: 'bucket'; readonly text: string; readonly buckets: number; readonly column: string; readonly sql: string }
  | { readonly kind: 'expression'; readonly text: string; readonly sql: string };

/** A partition value as stored in the cluster document: JSON scalars only. */
export type PartitionValue = string | number | boolean | null;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const BUCKET = /^bucket\s*\(\s*([^,]+?)\s*,\s*(.+?)\s*\)$/i;

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Parses a dataset's `partition_by` (one text or a list); errors name the dataset and what is accepted. */
export function parsePartitionBy(dataset: string, partitionBy: string | readonly string[]): PartitionKey[] {
  const texts = typeof partitionBy === 'string' ? [partitionBy] : [...partitionBy];
  return texts.map((text) => parsePartitionKey(dataset, text.trim()));
}

function parsePartitionKey(dataset: string, text: string): PartitionKey {
  const bucket = BUCKET.exec(text);
  if (bucket) {
    const count = Number(bucket[1]);
    if (!Number.isInteger(count) || count < 1 || count > MAX_BUCKETS) {
      throw invalid(dataset, `partition_by "${text}": the bucket count must be a whole number from 1 to ${MAX_BUCKETS}, e.g. bucket(8, customer_id)`);
    }
    const column = unquote(bucket[2]!);
    if (column === undefined) {
      throw invalid(dataset, `partition_by "${text}": bucket() takes a column name as its second argument, e.g. bucket(8, customer_id)`);
    }
    // hash() is a UBIGINT; the remainder is small and cast so values are plain JSON numbers.
    return { kind: 'bucket', text, buckets: count, column, sql: `CAST(hash(${quoteIdentifier(column)}) % ${count} AS INTEGER)` };
  }
  if (text === '') throw invalid(dataset, 'partition_by has an empty entry; expected a column, an expression or bucket(N, column)');
  if (/;/.test(text)) throw invalid(dataset, `partition_by "${text}": expected one SQL expression (no ";")`);
  const column = unquote(text);
  return { kind: 'expression', text, sql: column === undefined ? `(${text})` : quoteIdentifier(column) };
}

/** A plain or double-quoted identifier, unquoted; undefined when `text` is an expression. */
function unquote(text: string): string | undefined {
  if (IDENTIFIER.test(text)) return text;
  const quoted = /^"((?:[^"]|"")+)"$/.exec(text);
  return quoted ? quoted[1]!.replaceAll('""', '"') : undefined;
}

function invalid(dataset: string, message: string): QuarryError {
  return new QuarryError('CLUSTER_CONFIG_INVALID', `dataset "${dataset}": ${message}`, { details: { dataset } });
}

/** The document key of a partition: its values as canonical JSON, e.g. `[3]` or `["eu",2]`. */
export function partitionId(values: readonly PartitionValue[]): string {
  return JSON.stringify(values);
}

export function partitionValues(id: string): PartitionValue[] {
  return JSON.parse(id) as PartitionValue[];
}

/** A SQL literal for a partition value (strings quoted; DuckDB casts them where a date or time is compared). */
export function sqlLiteral(value: PartitionValue): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : `'${String(value)}'::DOUBLE`;
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * What an executor stores its share in order of: a bucket key's column (a hash has no order
 * a filter could use, the column does: `customer_id = 42` then reads one row group of the
 * share instead of all of them), an expression key itself (rows of a partition together).
 */
export function clusterOrder(keys: readonly PartitionKey[]): string {
  return keys.map((key) => (key.kind === 'bucket' ? quoteIdentifier(key.column) : key.sql)).join(', ');
}

/** The predicate one partition's rows satisfy: `key1 = v1 AND key2 IS NULL ...`. */
export function partitionPredicate(keys: readonly PartitionKey[], values: readonly PartitionValue[]): string {
  return keys.map((key, index) => {
    const value = values[index] ?? null;
    return value === null ? `${key.sql} IS NULL` : `${key.sql} = ${sqlLiteral(value)}`;
  }).join(' AND ');
}

/** The predicate of a set of partitions (an executor's share): a disjunction, or FALSE when it owns none. */
export function partitionsPredicate(keys: readonly PartitionKey[], partitions: readonly (readonly PartitionValue[])[]): string {
  if (partitions.length === 0) return 'FALSE';
  if (keys.length === 1) {
    const key = keys[0]!;
    const present = partitions.map((values) => values[0] ?? null).filter((value) => value !== null);
    const parts: string[] = [];
    // DuckDB expands `x IN (a, b, ...)` to `x = a OR x = b ...`, evaluating a bucket's hash() once
    // per value; list_contains evaluates it once per row (a scan leg over 4 buckets: 2x faster).
    if (present.length > 1 && key.kind === 'bucket') parts.push(`list_contains([${present.map(sqlLiteral).join(', ')}], ${key.sql})`);
    else if (present.length > 0) parts.push(`${key.sql} IN (${present.map(sqlLiteral).join(', ')})`);
    if (present.length < partitions.length) parts.push(`${key.sql} IS NULL`);
    return parts.length === 1 ? parts[0]! : `(${parts.join(' OR ')})`;
  }
  return `(${partitions.map((values) => `(${partitionPredicate(keys, values)})`).join(' OR ')})`;
}

/** DuckDB values from discovery as JSON scalars (BIGINT beyond 2^53 and dates become text). */
export function toPartitionValue(value: unknown): PartitionValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  return String(value);
}
