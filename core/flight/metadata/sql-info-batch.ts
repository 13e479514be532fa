import { makeData, RecordBatch, Struct, vectorFromArray, type Data } from 'apache-arrow';
import {
  INT32_TO_INT32_LIST_MAP_TYPE,
  SQL_INFO_SCHEMA,
  SQL_INFO_UNION_TYPE,
  SQL_INFO_VALUE_TYPE,
  STRING_LIST_TYPE,
} from './result-schemas.js';
import type { SqlInfoValue } from './sql-info.js';
import { Bool, Int32, Int64, Uint32, Utf8 } from 'apache-arrow';

/**
 * The CommandGetSqlInfo result: one row per requested id that Quarry knows (unknown ids are
 * left out), `value` a dense union whose type id says which member holds the value.
 */
export function sqlInfoBatch(values: ReadonlyMap<number, SqlInfoValue>, requested: readonly number[]): RecordBatch {
  const ids = (requested.length > 0 ? requested : [...values.keys()].sort((a, b) => a - b)).filter((id) => values.has(id));
  const members: { [K in SqlInfoValue['kind']]: unknown[] } = { string: [], bool: [], bigint: [], int32Bitmask: [], stringList: [], int32ToInt32ListMap: [] };
  const typeIds = new Int8Array(ids.length);
  const offsets = new Int32Array(ids.length);
  ids.forEach((id, row) => {
    const entry = values.get(id)!;
    const member = members[entry.kind];
    typeIds[row] = SQL_INFO_VALUE_TYPE[entry.kind];
    offsets[row] = member.length;
    member.push(entry.kind === 'stringList' ? [...entry.value] : entry.kind === 'int32ToInt32ListMap' ? new Map([...entry.value].map(([key, list]) => [key, [...list]])) : entry.value);
  });
  const children: Data[] = [
    vectorFromArray(members.string, new Utf8()).data[0]!,
    vectorFromArray(members.bool, new Bool()).data[0]!,
    vectorFromArray(members.bigint, new Int64()).data[0]!,
    vectorFromArray(members.int32Bitmask, new Int32()).data[0]!,
    vectorFromArray(members.stringList, STRING_LIST_TYPE).data[0]!,
    vectorFromArray(members.int32ToInt32ListMap, INT32_TO_INT32_LIST_MAP_TYPE).data[0]!,
  ];
  const value = makeData({ type: SQL_INFO_UNION_TYPE, length: ids.length, nullCount: 0, typeIds, valueOffsets: offsets, children });
  const infoName = vectorFromArray(ids, new Uint32()).data[0]!;
  return new RecordBatch(SQL_INFO_SCHEMA, makeData({ type: new Struct(SQL_INFO_SCHEMA.fields), length: ids.length, nullCount: 0, children: [infoName, value] }));
}
