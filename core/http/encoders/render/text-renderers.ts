/** Strings, binaries and decimals. */
import type { Decimal, FixedSizeBinary } from 'apache-arrow';
import { writeDecimalWords } from './number-text.js';
import { isNullAt, nullBitmapOf, writeNull, type ColumnRenderer, type Dialect } from './renderer.js';
import {
  isValidUtf8,
  maxBase64Bytes,
  maxCsvFieldBytes,
  maxJsonStringBytes,
  replaceInvalidUtf8,
  writeBase64,
  writeCsvField,
  writeJsonString,
} from './string-text.js';

/**
 * Utf8 (and LargeUtf8). `raw` copies the text unquoted: used for columns tagged
 * `arrow.json` (DuckDB JSON, VARIANT), which already hold JSON documents. Invalid UTF-8
 * is found with one native check per batch; only then are strings checked one by one.
 */
export function renderUtf8(dialect: Dialect, raw: boolean): ColumnRenderer {
  return (data, out, ends) => {
    const bitmap = nullBitmapOf(data);
    const offsets = data.valueOffsets as Int32Array | BigInt64Array;
    const wide = offsets instanceof BigInt64Array;
    const values = data.values;
    const first = Number(offsets[0] ?? 0);
    const last = Number(offsets[data.length] ?? 0);
    const allValid = isValidUtf8(values, first, last);
    for (let i = 0; i < data.length; i++) {
      if (bitmap !== null && isNullAt(bitmap, data.offset, i)) {
        const bytes = out.ensure(4);
        out.position = writeNull(bytes, out.position, dialect);
      } else {
        let source: Uint8Array = values;
        let start = wide ? Number(offsets[i]) : (offsets[i] as number);
        let end = wide ? Number(offsets[i + 1]) : (offsets[i + 1] as number);
        if (!allValid && !isValidUtf8(values, start, end)) {
          source = replaceInvalidUtf8(values, start, end);
          start = 0;
          end = source.length;
        }
        const length = end - start;
        if (raw) {
          const bytes = out.ensure(dialect === 'csv' ? maxCsvFieldBytes(length) : length);
          if (dialect === 'csv') {
            out.position = writeCsvField(bytes, out.position, source, start, end);
          } else {
            bytes.set(source.subarray(start, end), out.position);
            out.position += length;
          }
        } else if (dialect === 'json') {
          out.position = writeJsonString(out.ensure(maxJsonStringBytes(length)), out.position, source, start, end);
        } else {
          out.position = writeCsvField(out.ensure(maxCsvFieldBytes(length)), out.position, source, start, end);
        }
      }
      ends[i] = out.position;
    }
  };
}

/** Binary, LargeBinary and FixedSizeBinary → base64 text (quoted in JSON; in CSV only when empty). */
export function renderBinary(dialect: Dialect): ColumnRenderer {
  const quote = dialect === 'json';
  return (data, out, ends) => {
    const bitmap = nullBitmapOf(data);
    const offsets = data.valueOffsets as Int32Array | BigInt64Array | undefined;
    const width = offsets ? 0 : (data.type as FixedSizeBinary).byteWidth;
    const values = data.values;
    for (let i = 0; i < data.length; i++) {
      if (bitmap !== null && isNullAt(bitmap, data.offset, i)) {
        out.position = writeNull(out.ensure(4), out.position, dialect);
      } else {
        const start = offsets ? Number(offsets[i]) : i * width;
        const end = offsets ? Number(offsets[i + 1]) : (i + 1) * width;
        const bytes = out.ensure(maxBase64Bytes(end - start) + 2);
        let position = out.position;
        // Base64 never needs CSV quoting, except empty, which must differ from NULL.
        const quoted = quote || start === end;
        if (quoted) bytes[position++] = 34;
        position = writeBase64(bytes, position, values, start, end);
        if (quoted) bytes[position++] = 34;
        out.position = position;
      }
      ends[i] = out.position;
    }
  };
}

/** Decimal128/256 → exact JSON number text with the type's scale (`-12.50`). */
export function renderDecimal(dialect: Dialect): ColumnRenderer {
  return (data, out, ends) => {
    const { scale, bitWidth } = data.type as Decimal;
    const wordCount = bitWidth / 32;
    const bytes = out.ensure(data.length * (bitWidth === 256 ? 82 : 42));
    const bitmap = nullBitmapOf(data);
    const words = data.values as Uint32Array;
    let position = out.position;
    for (let i = 0; i < data.length; i++) {
      if (bitmap !== null && isNullAt(bitmap, data.offset, i)) position = writeNull(bytes, position, dialect);
      else position = writeDecimalWords(bytes, position, words, i * wordCount, wordCount, scale);
      ends[i] = position;
    }
    out.position = position;
  };
}
