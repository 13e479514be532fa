/**
 * One query producing a column of every DuckDB type a result can hold, with NULLs placed
 * differently in each column (row i is NULL in column k when i % 7 === k % 7).
 */
import type { DuckDBConnection } from '@duckdb/node-api';

/** Decimal text of `integerDigits`.`scale` digits built from hashes of i, signed by i. */
function decimalText(integerDigits: number, scale: number, seed: number): string {
  const chunks = Math.ceil((integerDigits + scale) / 9);
  const parts = Array.from({ length: chunks }, (_, k) => `lpad((hash(i * ${seed} + ${k}) % 1000000000)::VARCHAR, 9, '0')`);
  const digits = `right(${parts.join(' || ')}, ${integerDigits + scale})`;
  const integerPart = `left(${digits}, ${integerDigits})`;
  const fraction = scale > 0 ? ` || '.' || right(${digits}, ${scale})` : '';
  return `((CASE WHEN i % 2 = 0 THEN '-' ELSE '' END) || ${integerPart}${fraction})`;
}

/** [name, expression, cast applied after the NULL-placing CASE (CASE cannot yield ARRAY)]. */
export const everyTypeColumns: ReadonlyArray<readonly [name: string, expression: string, castAfter?: string]> = [
  ['c_boolean', 'i % 2 = 0'],
  ['c_tinyint', '(i % 256 - 128)::TINYINT'],
  ['c_smallint', '(i * 7 % 65536 - 32768)::SMALLINT'],
  ['c_integer', '(i * 104729 % 4294967296 - 2147483648)::INTEGER'],
  ['c_bigint', '((hash(i) >> 1)::BIGINT * (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END))'],
  ['c_utinyint', '(i % 256)::UTINYINT'],
  ['c_usmallint', '(i * 13 % 65536)::USMALLINT'],
  ['c_uinteger', '(i * 2654435761 % 4294967296)::UINTEGER'],
  ['c_ubigint', 'hash(i)'],
  ['c_hugeint', '((hash(i) >> 1)::HUGEINT * hash(i + 1)::HUGEINT * (CASE WHEN i % 3 = 0 THEN -1 ELSE 1 END))'],
  ['c_uhugeint', '(hash(i)::UHUGEINT * hash(i + 1)::UHUGEINT)'],
  ['c_float', "(CASE i % 50 WHEN 3 THEN 'nan'::FLOAT WHEN 4 THEN 'inf'::FLOAT WHEN 5 THEN '-inf'::FLOAT ELSE (i * 1.1 - 2000)::FLOAT END)"],
  ['c_double', "(CASE i % 50 WHEN 3 THEN 'nan'::DOUBLE WHEN 4 THEN 'inf'::DOUBLE ELSE i * 1.000001 - 2500.5 END)"],
  ['c_decimal_4_2', `${decimalText(2, 2, 3)}::DECIMAL(4,2)`],
  ['c_decimal_9_3', `${decimalText(6, 3, 5)}::DECIMAL(9,3)`],
  ['c_decimal_18_6', `${decimalText(12, 6, 7)}::DECIMAL(18,6)`],
  ['c_decimal_38_10', `${decimalText(28, 10, 11)}::DECIMAL(38,10)`],
  ['c_decimal_38_0', `${decimalText(38, 0, 13)}::DECIMAL(38,0)`],
  ['c_varchar', "(CASE i % 4 WHEN 0 THEN 's' || i WHEN 1 THEN 'a fairly long string that is not inlined #' || i WHEN 2 THEN 'ünïcödé 🙂 ' || i ELSE '' END)"],
  ['c_json', "json_object('a', i, 'b', [i::VARCHAR, 'x \"q\"'])::JSON"],
  ['c_blob', "encode(repeat('b', (i % 20)::INTEGER))"],
  ['c_date', "(DATE '1970-01-01' + (i * 37 - 90000)::INTEGER)"],
  ['c_time', "(TIME '00:00:00' + to_microseconds(i * 1234567 % 86400000000))"],
  ['c_time_ns', "(CASE i % 2 WHEN 0 THEN '12:34:56.123456789' ELSE '00:00:00.000000001' END)::TIME_NS"],
  ['c_time_tz', "('12:34:56.789' || (CASE i % 3 WHEN 0 THEN '+05:30' WHEN 1 THEN '-08' ELSE '+00' END))::TIMETZ"],
  ['c_timestamp', "(TIMESTAMP '1900-01-01' + to_microseconds((hash(i) % 7000000000000000)::BIGINT))"],
  ['c_timestamp_s', "(TIMESTAMP '1900-01-01' + to_microseconds((hash(i) % 7000000000000000)::BIGINT))::TIMESTAMP_S"],
  ['c_timestamp_ms', "(TIMESTAMP '1900-01-01' + to_microseconds((hash(i) % 7000000000000000)::BIGINT))::TIMESTAMP_MS"],
  ['c_timestamp_ns', "(TIMESTAMP '1950-01-01' + to_microseconds((hash(i) % 3000000000000000)::BIGINT))::TIMESTAMP_NS"],
  ['c_timestamptz', "(TIMESTAMP '1900-01-01' + to_microseconds((hash(i) % 7000000000000000)::BIGINT))::TIMESTAMPTZ"],
  ['c_interval', '(to_months((i % 30)::INTEGER) + to_days((i % 40 - 20)::INTEGER) + to_microseconds(i * 1000003 - 100000))'],
  ['c_uuid', 'md5(i::VARCHAR)::UUID'],
  ['c_enum', "(['sad', 'ok', 'happy'][(i % 3 + 1)::INTEGER])::mood"],
  ['c_enum_wide', "('v' || (i % 300))::wide_enum"],
  ['c_list', '[i, NULL, i + 1][1:(i % 4)::INTEGER]'],
  ['c_list_varchar', "['x' || i, 'a longer list element value ' || i][1:(i % 3)::INTEGER]"],
  ['c_list_of_struct', "[{'k': i, 's': 'v' || i}, {'k': NULL, 's': NULL}][1:(i % 3)::INTEGER]"],
  ['c_list_of_list', '[[i], [], [i, i + 1]][1:(i % 4)::INTEGER]'],
  ['c_array', '[i, i + 1, NULL]', 'INTEGER[3]'],
  ['c_array_varchar', "['a', 'a long array element that is not inlined ' || i]", 'VARCHAR[2]'],
  ['c_struct', "{'a': i, 'b': 'x' || i, 'c': [i], 'd': {'e': i % 2 = 0}}"],
  ['c_map', "MAP {'k' || i: i, 'z': NULL}"],
  ['c_map_int', "MAP {i: 'one', i + 1: 'a long value that is not inlined'}"],
  ['c_union', "(CASE WHEN i % 2 = 0 THEN i::INTEGER::UNION(num INTEGER, str VARCHAR) ELSE ('s' || i)::UNION(num INTEGER, str VARCHAR) END)"],
  ['c_bit', "(CASE WHEN i % 2 = 0 THEN i::INTEGER::BIT ELSE '101'::BIT END)"],
  ['c_bignum', "((CASE WHEN i % 2 = 0 THEN '-' ELSE '' END) || repeat('9', (1 + i % 45)::INTEGER))::BIGNUM"],
  ['c_geometry', "('POINT(' || i || ' ' || (i * 2) || ')')::GEOMETRY"],
  ['c_variant', "(CASE i % 3 WHEN 0 THEN i::VARIANT WHEN 1 THEN ('x' || i)::VARIANT ELSE {'a': i, 'b': [i]}::VARIANT END)"],
];

export async function createEveryTypeEnums(connection: DuckDBConnection): Promise<void> {
  await connection.run("CREATE TYPE IF NOT EXISTS mood AS ENUM ('sad', 'ok', 'happy')");
  await connection.run("CREATE TYPE IF NOT EXISTS wide_enum AS ENUM (SELECT 'v' || i FROM range(300) t(i))");
}

export function everyTypeQuery(rowCount: number, columns = everyTypeColumns): string {
  const selected = columns.map(([name, expression, castAfter], k) => {
    const nullable = `CASE WHEN i % 7 = ${k % 7} THEN NULL ELSE ${expression} END`;
    return castAfter ? `(${nullable})::${castAfter} AS ${name}` : `${nullable} AS ${name}`;
  });
  return `SELECT ${selected.join(',\n  ')}\nFROM range(${rowCount}) t(i) ORDER BY i`;
}
