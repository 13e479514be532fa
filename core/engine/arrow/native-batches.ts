/**
 * A streamed result's batches built by the native helper (core/engine/native/batch-fetch.ts):
 * which results it can take, and how its buffers become RecordBatches of the result's schema.
 *
 * The helper converts the columns whose Arrow layout is a copy of DuckDB's (integers, floats,
 * dates, times, timestamps, HUGEINT and wide decimals), a bit-pack (BOOLEAN), a sign extension
 * (narrow decimals) or a string copy (VARCHAR, BLOB, GEOMETRY), exactly as the accumulators
 * do (native-batches.test.ts compares the two). A result with any other column type is
 * converted by BatchAssembler instead.
 */
import type { DuckDBDecimalType, DuckDBType } from '@duckdb/node-api';
import { makeData, Struct, type Binary, type Data, type DataType, type Decimal, type RecordBatch, type Schema, type Utf8 } from 'apache-arrow';
import { DuckDBTypeId } from '../duckdb-api.js';
import { NativeColumnKind, type NativeBatchEntries } from '../native/batch-fetch.js';
import { booleanByteWidth } from './duckdb-vectors.js';
import { fixedWidthOf } from './accumulators/create-accumulator.js';
import { recordBatchOf } from './record-batch-of.js';

/**
 * The helper's plan for a result of `types` (three Int32 entries a column: kind, DuckDB
 * width, Arrow width), or null when a column needs the JavaScript conversion.
 */
export function nativePlanFor(types: readonly DuckDBType[], schema: Schema): Int32Array | null {
  if (types.length === 0 || booleanByteWidth !== 1) return null;
  const plan = new Int32Array(types.length * 3);
  for (let i = 0; i < types.length; i++) {
    const column = columnPlan(types[i]!, schema.fields[i]!.type);
    if (column === null) return null;
    plan.set(column, i * 3);
  }
  return plan;
}

function columnPlan(type: DuckDBType, arrowType: DataType): [number, number, number] | null {
  const width = fixedWidthOf(type.typeId);
  if (width !== null) return [NativeColumnKind.fixed, width, 0];
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return [NativeColumnKind.boolean, 1, 0];
    case DuckDBTypeId.DECIMAL: {
      const { width } = type as DuckDBDecimalType;
      const arrowWidth = (arrowType as Decimal).bitWidth / 8;
      if (width <= 4) return [NativeColumnKind.widen, 2, arrowWidth];
      if (width <= 9) return [NativeColumnKind.widen, 4, arrowWidth];
      if (width <= 18) return [NativeColumnKind.widen, 8, arrowWidth];
      return [NativeColumnKind.fixed, 16, 0];
    }
    case DuckDBTypeId.VARCHAR:
    case DuckDBTypeId.BLOB:
    case DuckDBTypeId.GEOMETRY:
      return [NativeColumnKind.string, 16, 0];
    default:
      return null;
  }
}

/** Builds the RecordBatches of one result from the helper's buffers. */
export class NativeBatchBuilder {
  readonly #schema: Schema;
  readonly #structType: Struct;

  constructor(schema: Schema) {
    this.#schema = schema;
    this.#structType = new Struct(schema.fields);
  }

  batchOf(entries: NativeBatchEntries): RecordBatch {
    const rows = entries[0];
    const fields = this.#schema.fields;
    const children: Data[] = new Array<Data>(fields.length);
    for (let i = 0; i < fields.length; i++) {
      const at = 3 + i * 4;
      const validity = entries[at] as ArrayBuffer | null;
      const nullCount = entries[at + 1] as number;
      const values = new Uint8Array(entries[at + 2] as ArrayBuffer);
      const offsets = entries[at + 3] as ArrayBuffer | null;
      const nullBitmap = validity === null ? undefined : new Uint8Array(validity);
      const type = fields[i]!.type as DataType;
      children[i] = offsets === null
        ? makeData({ type, length: rows, nullCount, nullBitmap, data: values } as never)
        : makeData({ type: type as Utf8 | Binary, length: rows, nullCount, nullBitmap, valueOffsets: new Int32Array(offsets), data: values } as never);
    }
    return recordBatchOf(this.#schema, makeData({ type: this.#structType, length: rows, nullCount: 0, children }));
  }
}
