/**
 * Lists, structs, maps, unions and dictionaries. Children are rendered column-at-a-time
 * into scratch columns (kept per renderer and reused across batches), then each row's
 * text is assembled from the children's byte ranges.
 */
import { type Data, type Dictionary, type FixedSizeList, type SparseUnion, type Vector } from 'apache-arrow';
import { newRenderedColumn, prepareRenderedColumn, type ByteWriter, type RenderedColumn } from './byte-writer.js';
import { isNullAt, nullBitmapOf, writeNull, type ColumnRenderer, type Dialect } from './renderer.js';
import { maxCsvFieldBytes, writeCsvField } from './string-text.js';

/** Renders `data` into a scratch column: rows 0..data.length. */
function renderInto(renderer: ColumnRenderer, data: Data, column: RenderedColumn): void {
  prepareRenderedColumn(column, data.length);
  renderer(data, column.writer, column.ends);
}

function copyRange(target: Uint8Array, position: number, source: Uint8Array, start: number, end: number): number {
  if (end - start > 64) {
    target.set(source.subarray(start, end), position);
    return position + end - start;
  }
  for (let k = start; k < end; k++) target[position++] = source[k]!;
  return position;
}

/** List, LargeList and FixedSizeList → `[a,b]`. */
export function renderList(item: ColumnRenderer): ColumnRenderer {
  const items = newRenderedColumn();
  return (data, out, ends) => {
    const n = data.length;
    const size = (data.type as FixedSizeList).listSize;
    const fixed = data.valueOffsets === undefined || data.valueOffsets === null;
    const offsets = data.valueOffsets as Int32Array | BigInt64Array;
    const first = fixed ? 0 : Number(offsets[0] ?? 0);
    const last = fixed ? n * size : Number(offsets[n] ?? 0);
    renderInto(item, data.children[0]!.slice(first, last - first), items);
    const source = items.writer.bytes;
    const itemEnds = items.ends;
    const bytes = out.ensure(items.writer.position + (last - first) + n * 4);
    const bitmap = nullBitmapOf(data);
    let position = out.position;
    for (let i = 0; i < n; i++) {
      if (bitmap !== null && isNullAt(bitmap, data.offset, i)) {
        position = writeNull(bytes, position, 'json');
      } else {
        const from = (fixed ? i * size : Number(offsets[i])) - first;
        const to = (fixed ? (i + 1) * size : Number(offsets[i + 1])) - first;
        bytes[position++] = 91;
        for (let j = from; j < to; j++) {
          if (j > from) bytes[position++] = 44;
          position = copyRange(bytes, position, source, j === 0 ? 0 : itemEnds[j - 1]!, itemEnds[j]!);
        }
        bytes[position++] = 93;
      }
      ends[i] = position;
    }
    out.position = position;
  };
}

/** Struct → `{"a":1,"b":"x"}` with keys in field order. */
export function renderStruct(names: readonly string[], members: readonly ColumnRenderer[]): ColumnRenderer {
  const keys = names.map((name, k) => Buffer.from(`${k === 0 ? '{' : ','}${JSON.stringify(name)}:`, 'utf8'));
  const columns = members.map(() => newRenderedColumn());
  return (data, out, ends) => {
    const n = data.length;
    let total = 2 * n;
    members.forEach((member, k) => {
      const child = data.children[k]!;
      renderInto(member, child.length === n ? child : child.slice(0, n), columns[k]!);
      total += columns[k]!.writer.position + keys[k]!.length * n;
    });
    const bytes = out.ensure(total + n * 4);
    const bitmap = nullBitmapOf(data);
    let position = out.position;
    for (let i = 0; i < n; i++) {
      if (bitmap !== null && isNullAt(bitmap, data.offset, i)) {
        position = writeNull(bytes, position, 'json');
      } else {
        if (members.length === 0) bytes[position++] = 123;
        for (let k = 0; k < members.length; k++) {
          const key = keys[k]!;
          for (let b = 0; b < key.length; b++) bytes[position++] = key[b]!;
          const column = columns[k]!;
          position = copyRange(bytes, position, column.writer.bytes, i === 0 ? 0 : column.ends[i - 1]!, column.ends[i]!);
        }
        bytes[position++] = 125;
      }
      ends[i] = position;
    }
    out.position = position;
  };
}

const KEY_PREFIX = Buffer.from('{"key":');
const VALUE_PREFIX = Buffer.from(',"value":');

/**
 * Map → `{"k":v}` when keys are strings (JSON object keys must be), else
 * `[{"key":k,"value":v}]`. The key renderer for string keys must render quoted strings.
 */
export function renderMap(key: ColumnRenderer, value: ColumnRenderer, stringKeys: boolean): ColumnRenderer {
  const keys = newRenderedColumn();
  const values = newRenderedColumn();
  return (data, out, ends) => {
    const n = data.length;
    const offsets = data.valueOffsets as Int32Array;
    const first = offsets[0] ?? 0;
    const last = offsets[n] ?? 0;
    const entries = data.children[0]!.slice(first, last - first);
    renderInto(key, entries.children[0]!, keys);
    renderInto(value, entries.children[1]!, values);
    const bytes = out.ensure(keys.writer.position + values.writer.position + (last - first) * 18 + n * 4);
    const bitmap = nullBitmapOf(data);
    let position = out.position;
    for (let i = 0; i < n; i++) {
      if (bitmap !== null && isNullAt(bitmap, data.offset, i)) {
        position = writeNull(bytes, position, 'json');
      } else {
        bytes[position++] = stringKeys ? 123 : 91;
        for (let j = offsets[i]! - first; j < offsets[i + 1]! - first; j++) {
          if (j > offsets[i]! - first) bytes[position++] = 44;
          if (!stringKeys) position = copyRange(bytes, position, KEY_PREFIX, 0, KEY_PREFIX.length);
          position = copyRange(bytes, position, keys.writer.bytes, j === 0 ? 0 : keys.ends[j - 1]!, keys.ends[j]!);
          if (stringKeys) bytes[position++] = 58;
          else position = copyRange(bytes, position, VALUE_PREFIX, 0, VALUE_PREFIX.length);
          position = copyRange(bytes, position, values.writer.bytes, j === 0 ? 0 : values.ends[j - 1]!, values.ends[j]!);
          if (!stringKeys) bytes[position++] = 125;
        }
        bytes[position++] = stringKeys ? 125 : 93;
      }
      ends[i] = position;
    }
    out.position = position;
  };
}

/** Union (sparse or dense) → the selected member's value; the tag is not written. */
export function renderUnion(members: readonly ColumnRenderer[]): ColumnRenderer {
  const columns = members.map(() => newRenderedColumn());
  return (data, out, ends) => {
    const type = data.type as SparseUnion;
    const dense = data.valueOffsets !== undefined && data.valueOffsets !== null;
    let total = 0;
    members.forEach((member, k) => {
      const child = data.children[k]!;
      renderInto(member, dense || child.length === data.length ? child : child.slice(0, data.length), columns[k]!);
      total += columns[k]!.writer.position;
    });
    const bytes = out.ensure(total);
    const typeIds = data.typeIds;
    const valueOffsets = data.valueOffsets as Int32Array;
    let position = out.position;
    for (let i = 0; i < data.length; i++) {
      const column = columns[type.typeIdToChildIndex[typeIds[i]!]!]!;
      const row = dense ? valueOffsets[i]! : i;
      position = copyRange(bytes, position, column.writer.bytes, row === 0 ? 0 : column.ends[row - 1]!, column.ends[row]!);
      ends[i] = position;
    }
    out.position = position;
  };
}

/**
 * Dictionary → the rendered dictionary entry of each index. The dictionary is rendered
 * once and reused while batches share it (DuckDB ENUM batches all do).
 */
export function renderDictionary(entry: ColumnRenderer, dialect: Dialect): ColumnRenderer {
  const rendered = newRenderedColumn();
  const part = newRenderedColumn();
  let renderedFor: Vector | null = null;
  let longestEntry = 4;
  const renderDictionaryValues = (dictionary: Vector): void => {
    prepareRenderedColumn(rendered, dictionary.length);
    let base = 0;
    for (const chunk of dictionary.data) {
      renderInto(entry, chunk, part);
      rendered.writer.writeBytes(part.writer.bytes.subarray(0, part.writer.position));
      const shift = rendered.writer.position - part.writer.position;
      for (let e = 0; e < chunk.length; e++) rendered.ends[base + e] = part.ends[e]! + shift;
      base += chunk.length;
    }
    longestEntry = 4;
    for (let e = 0; e < dictionary.length; e++) longestEntry = Math.max(longestEntry, rendered.ends[e]! - (e === 0 ? 0 : rendered.ends[e - 1]!));
    renderedFor = dictionary;
  };
  return (data, out, ends) => {
    const dictionary = (data as Data<Dictionary>).dictionary!;
    if (dictionary !== renderedFor) renderDictionaryValues(dictionary);
    const source = rendered.writer.bytes;
    const entryEnds = rendered.ends;
    const indices = data.values as Int32Array;
    const bitmap = nullBitmapOf(data);
    const bytes = out.ensure(data.length * longestEntry);
    let position = out.position;
    for (let i = 0; i < data.length; i++) {
      if (bitmap !== null && isNullAt(bitmap, data.offset, i)) {
        position = writeNull(bytes, position, dialect);
      } else {
        const index = Number(indices[i]);
        position = copyRange(bytes, position, source, index === 0 ? 0 : entryEnds[index - 1]!, entryEnds[index]!);
      }
      ends[i] = position;
    }
    out.position = position;
  };
}

/** CSV form of a value rendered as JSON (lists, structs, maps, intervals): one quoted field, NULL empty. */
export function csvQuoted(json: ColumnRenderer): ColumnRenderer {
  const scratch = newRenderedColumn();
  return (data, out: ByteWriter, ends) => {
    renderInto(json, data, scratch);
    const source = scratch.writer.bytes;
    const bitmap = nullBitmapOf(data);
    const bytes = out.ensure(maxCsvFieldBytes(scratch.writer.position) + data.length * 2);
    let position = out.position;
    for (let i = 0; i < data.length; i++) {
      if (bitmap === null || !isNullAt(bitmap, data.offset, i)) {
        position = writeCsvField(bytes, position, source, i === 0 ? 0 : scratch.ends[i - 1]!, scratch.ends[i]!);
      }
      ends[i] = position;
    }
    out.position = position;
  };
}
