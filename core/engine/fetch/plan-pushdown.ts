import type { ScanFilter, ScanValue } from '../sources/connector.js';

/** What one query needs from one live dataset: its columns and the filters every wanted row meets. */
export interface PlannedScan {
  readonly columns: readonly string[];
  readonly filters: readonly ScanFilter[];
  /** Set only when the query takes at most this many rows straight from the scan, with no filter. */
  readonly limit?: number;
}

interface PlanConstant {
  readonly type: { readonly id: string; readonly type_info: { readonly scale?: number } | null };
  readonly is_null: boolean;
  readonly value: unknown;
}

interface TableFilter {
  readonly filter_type: string;
  readonly comparison_type?: string;
  readonly constant?: PlanConstant;
  readonly values?: readonly PlanConstant[];
  readonly child_filter?: TableFilter;
  readonly child_filters?: readonly TableFilter[];
  readonly expr?: { readonly type?: string; readonly children?: ReadonlyArray<{ readonly type?: string }> };
}

interface LogicalGet {
  readonly type: 'LOGICAL_GET';
  readonly names?: readonly string[];
  readonly column_indexes?: ReadonlyArray<{ readonly index: number; readonly child_indexes?: readonly unknown[] }>;
  readonly table_filters?: { readonly filters?: ReadonlyArray<{ readonly key: number; readonly value: TableFilter }> };
  readonly function_data?: { readonly files?: readonly string[] };
}

const comparisons: Record<string, '=' | '<>' | '<' | '<=' | '>' | '>='> = {
  COMPARE_EQUAL: '=',
  COMPARE_NOTEQUAL: '<>',
  COMPARE_LESSTHAN: '<',
  COMPARE_LESSTHANOREQUALTO: '<=',
  COMPARE_GREATERTHAN: '>',
  COMPARE_GREATERTHANOREQUALTO: '>=',
};

/**
 * Reads DuckDB's optimised logical plan (json_serialize_plan) for the scans of live datasets.
 * Each live dataset's view reads an empty typed parquet stub, so its scans are LOGICAL_GET
 * nodes over that stub's file, with the columns the query uses (`column_indexes`) and the
 * filters the optimiser pushed into the scan (`table_filters`, keyed by the table's column
 * index, checked against DuckDB 1.5.6 by test/engine/plan-pushdown.test.ts). Returns the scans by stub file; a dataset read more than once gets the
 * union of the columns and only the filters every read shares (none, to stay simple and safe).
 * Undefined when the plan cannot be read: the caller then reads whole datasets.
 */
export function plannedScans(planJson: string, stubFiles: ReadonlySet<string>): Map<string, PlannedScan> | undefined {
  let plan: unknown;
  try {
    plan = JSON.parse(planJson);
  } catch {
    return undefined;
  }
  if ((plan as { error?: boolean }).error) return undefined;
  const gets: Array<{ get: LogicalGet; limit: number | undefined }> = [];
  collectGets(plan, undefined, gets);
  const scans = new Map<string, PlannedScan>();
  for (const { get, limit } of gets) {
    const file = get.function_data?.files?.[0];
    if (file === undefined || !stubFiles.has(file) || !get.names || !get.column_indexes) continue;
    const names = get.names;
    const positions = get.column_indexes.map((column) => column.index);
    // Row ids and other virtual columns have indexes past the table's columns.
    const columns = positions.filter((index) => index < names.length).map((index) => names[index]!);
    const filters: ScanFilter[] = [];
    for (const entry of get.table_filters?.filters ?? []) {
      if (entry.key >= names.length) continue;
      filters.push(...scanFilters(names[entry.key]!, entry.value));
    }
    const previous = scans.get(file);
    const unfiltered = (get.table_filters?.filters ?? []).length === 0;
    scans.set(file, previous
      ? { columns: [...new Set([...previous.columns, ...columns])], filters: [] }
      : { columns, filters, ...(limit !== undefined && unfiltered ? { limit } : {}) });
  }
  return scans;
}

/**
 * Every LOGICAL_GET, with the row limit that applies straight to it: a LOGICAL_LIMIT of
 * constants with only projections between it and the scan (DuckDB pushes limits down so).
 */
function collectGets(node: unknown, limit: number | undefined, into: Array<{ get: LogicalGet; limit: number | undefined }>): void {
  if (Array.isArray(node)) {
    for (const child of node) collectGets(child, limit, into);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const type = (node as { type?: unknown }).type;
  if (type === 'LOGICAL_GET') into.push({ get: node as LogicalGet, limit });
  const childLimit = type === 'LOGICAL_LIMIT' ? constantLimit(node as LogicalLimit) : type === 'LOGICAL_PROJECTION' ? limit : undefined;
  for (const [key, value] of Object.entries(node)) collectGets(value, key === 'children' ? childLimit : undefined, into);
}

interface LogicalLimit {
  readonly limit_val?: { readonly type?: string; readonly constant_integer?: number };
  readonly offset_val?: { readonly type?: string; readonly constant_integer?: number };
}

/** LIMIT n [OFFSET m] with constants → n + m rows from the scan; anything else → undefined. */
function constantLimit(node: LogicalLimit): number | undefined {
  if (node.limit_val?.type !== 'CONSTANT_VALUE' || !Number.isSafeInteger(node.limit_val.constant_integer)) return undefined;
  const offset = node.offset_val?.type === 'UNSET' ? 0 : node.offset_val?.type === 'CONSTANT_VALUE' ? node.offset_val.constant_integer : undefined;
  return offset === undefined || !Number.isSafeInteger(offset) ? undefined : node.limit_val.constant_integer! + offset;
}

/** The simple predicates in one table filter; anything else is left to the engine (which re-applies all). */
function scanFilters(column: string, filter: TableFilter): ScanFilter[] {
  switch (filter.filter_type) {
    case 'OPTIONAL_FILTER':
      return filter.child_filter ? scanFilters(column, filter.child_filter) : [];
    case 'CONJUNCTION_AND':
      return (filter.child_filters ?? []).flatMap((child) => scanFilters(column, child));
    case 'CONSTANT_COMPARISON': {
      const operator = comparisons[filter.comparison_type ?? ''];
      const value = filter.constant && scanValue(filter.constant);
      return operator && value !== undefined ? [{ column, operator, value }] : [];
    }
    case 'IN_FILTER': {
      const values = (filter.values ?? []).map(scanValue);
      return values.length > 0 && values.every((value) => value !== undefined) ? [{ column, operator: 'IN', values: values as ScanValue[] }] : [];
    }
    case 'IS_NULL':
      return [{ column, operator: 'IS NULL' }];
    case 'IS_NOT_NULL':
      return [{ column, operator: 'IS NOT NULL' }];
    case 'EXPRESSION_FILTER': {
      const type = filter.expr?.type;
      // `WHERE flag` on a boolean column.
      if (type === 'BOUND_REF') return [{ column, operator: '=', value: true }];
      const onColumn = filter.expr?.children?.length === 1 && filter.expr.children[0]?.type === 'BOUND_REF';
      if (onColumn && type === 'OPERATOR_IS_NULL') return [{ column, operator: 'IS NULL' }];
      if (onColumn && type === 'OPERATOR_IS_NOT_NULL') return [{ column, operator: 'IS NOT NULL' }];
      return [];
    }
    default:
      return [];
  }
}

/**
 * A plan constant as a JS value, only when the conversion is exact (a pushed-down value that
 * was rounded could drop rows the query wants).
 */
function scanValue(constant: PlanConstant): ScanValue | undefined {
  if (constant.is_null) return undefined;
  const { value } = constant;
  switch (constant.type.id) {
    case 'BOOLEAN':
      return typeof value === 'boolean' ? value : undefined;
    case 'TINYINT': case 'SMALLINT': case 'INTEGER': case 'UTINYINT': case 'USMALLINT': case 'UINTEGER':
      return typeof value === 'number' ? value : undefined;
    case 'BIGINT': case 'UBIGINT':
      return typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : undefined;
    case 'FLOAT': case 'DOUBLE':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
    case 'VARCHAR':
      return typeof value === 'string' && constant.type.type_info === null ? value : undefined;
    case 'DECIMAL': {
      const scale = constant.type.type_info?.scale;
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || scale === undefined) return undefined;
      return decimalText(BigInt(value), scale);
    }
    case 'DATE':
      return typeof value === 'number' && Number.isSafeInteger(value) ? new Date(value * 86_400_000) : undefined;
    default:
      // Timestamps carry microseconds a JS Date cannot hold exactly; left to the engine.
      return undefined;
  }
}

/** 300 at scale 2 → "3.00": exact, and a source compares it as a number in its own column type. */
function decimalText(scaled: bigint, scale: number): string {
  const negative = scaled < 0n;
  const digits = (negative ? -scaled : scaled).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}
