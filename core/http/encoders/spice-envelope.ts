import { DataType, Type, type Field, type RecordBatch, type Schema } from 'apache-arrow';
import { encodeJson } from './json.js';
import type { EncoderInput, TextEncoderOptions } from './types.js';

/**
 * Spice's `application/vnd.spiceai.sql.v1+json` answer (what spice.js' `sqlJson()` asks for):
 * one object with the result's Arrow schema in arrow-rs's JSON form, the rows as `/v1/sql`'s
 * JSON gives them, and their count:
 * `{"schema":{"fields":[{"name","data_type","nullable","dict_id","dict_is_ordered","metadata"}]},"data":[...],"row_count":N}`.
 * The rows stream as they are encoded; `row_count` comes last because it is known only then
 * (JSON readers do not care about key order).
 */
export async function* encodeSpiceEnvelope(input: EncoderInput, options: TextEncoderOptions = {}): AsyncGenerator<Buffer, void, undefined> {
  let rows = 0;
  const counted: AsyncIterable<RecordBatch> = {
    async *[Symbol.asyncIterator]() {
      for await (const batch of input.batches) {
        rows += batch.numRows;
        yield batch;
      }
    },
  };
  yield Buffer.from(`{"schema":${JSON.stringify(schemaJson(input.schema))},"data":`);
  yield* encodeJson({ schema: input.schema, batches: counted }, options);
  yield Buffer.from(`,"row_count":${rows}}`);
}

function schemaJson(schema: Schema) {
  return { fields: schema.fields.map(fieldJson), metadata: {} };
}

function fieldJson(field: Field) {
  return { name: field.name, data_type: dataTypeJson(field.type), nullable: field.nullable, dict_id: 0, dict_is_ordered: false, metadata: Object.fromEntries(field.metadata) };
}

const TIME_UNITS = ['Second', 'Millisecond', 'Microsecond', 'Nanosecond'];

/** arrow-rs's serde form of a data type: a name for plain types, `{ Name: [arguments] }` for parameterised ones. */
function dataTypeJson(type: DataType): unknown {
  switch (type.typeId) {
    case Type.Null: return 'Null';
    case Type.Bool: return 'Boolean';
    case Type.Int: {
      const int = type as DataType<Type.Int> & { bitWidth: number; isSigned: boolean };
      return `${int.isSigned ? 'Int' : 'UInt'}${int.bitWidth}`;
    }
    case Type.Float: return ['Float16', 'Float32', 'Float64'][(type as DataType<Type.Float> & { precision: number }).precision];
    case Type.Utf8: return 'Utf8';
    case Type.LargeUtf8: return 'LargeUtf8';
    case Type.Binary: return 'Binary';
    case Type.LargeBinary: return 'LargeBinary';
    case Type.FixedSizeBinary: return { FixedSizeBinary: (type as DataType<Type.FixedSizeBinary> & { byteWidth: number }).byteWidth };
    case Type.Date: return (type as DataType<Type.Date> & { unit: number }).unit === 0 ? 'Date32' : 'Date64';
    case Type.Timestamp: {
      const timestamp = type as DataType<Type.Timestamp> & { unit: number; timezone: string | null };
      return { Timestamp: [TIME_UNITS[timestamp.unit], timestamp.timezone ?? null] };
    }
    case Type.Time: {
      const time = type as DataType<Type.Time> & { unit: number; bitWidth: number };
      return { [`Time${time.bitWidth}`]: TIME_UNITS[time.unit] };
    }
    case Type.Duration: return { Duration: TIME_UNITS[(type as DataType<Type.Duration> & { unit: number }).unit] };
    case Type.Interval: return { Interval: ['YearMonth', 'DayTime', 'MonthDayNano'][(type as DataType<Type.Interval> & { unit: number }).unit] };
    case Type.Decimal: {
      const decimal = type as DataType<Type.Decimal> & { precision: number; scale: number; bitWidth: number };
      return { [`Decimal${decimal.bitWidth}`]: [decimal.precision, decimal.scale] };
    }
    case Type.List:
    case Type.LargeList:
    case Type.FixedSizeList: {
      const child = type.children[0] as Field;
      const name = type.typeId === Type.List ? 'List' : type.typeId === Type.LargeList ? 'LargeList' : 'FixedSizeList';
      return type.typeId === Type.FixedSizeList ? { [name]: [fieldJson(child), (type as DataType<Type.FixedSizeList> & { listSize: number }).listSize] } : { [name]: fieldJson(child) };
    }
    case Type.Struct: return { Struct: (type.children as Field[]).map(fieldJson) };
    case Type.Map: return { Map: [fieldJson(type.children[0] as Field), false] };
    case Type.Dictionary: {
      const dictionary = type as DataType<Type.Dictionary> & { indices: DataType; dictionary: DataType };
      return { Dictionary: [dataTypeJson(dictionary.indices), dataTypeJson(dictionary.dictionary)] };
    }
    default: return String(type);
  }
}
