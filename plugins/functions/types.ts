/**
 * Declared types of function arguments and results: Arrow/SQL logical type names (with the
 * aliases Spice users write) parsed into a small tree, then printed as DuckDB SQL types.
 * Parsing is case-insensitive; an unknown name is a manifest error.
 */

export type FunctionType =
  | { kind: 'primitive'; sql: string; family: 'integer' | 'bigint' | 'float' | 'string' | 'boolean' | 'other' }
  | { kind: 'list'; element: FunctionType }
  | { kind: 'struct'; fields: Array<{ name: string; type: FunctionType }> };

const PRIMITIVES: Record<string, { sql: string; family: 'integer' | 'bigint' | 'float' | 'string' | 'boolean' | 'other' }> = {
  int8: { sql: 'TINYINT', family: 'integer' },
  tinyint: { sql: 'TINYINT', family: 'integer' },
  int16: { sql: 'SMALLINT', family: 'integer' },
  smallint: { sql: 'SMALLINT', family: 'integer' },
  int32: { sql: 'INTEGER', family: 'integer' },
  int: { sql: 'INTEGER', family: 'integer' },
  integer: { sql: 'INTEGER', family: 'integer' },
  int64: { sql: 'BIGINT', family: 'bigint' },
  bigint: { sql: 'BIGINT', family: 'bigint' },
  uint8: { sql: 'UTINYINT', family: 'integer' },
  uint16: { sql: 'USMALLINT', family: 'integer' },
  uint32: { sql: 'UINTEGER', family: 'bigint' },
  uint64: { sql: 'UBIGINT', family: 'bigint' },
  float32: { sql: 'FLOAT', family: 'float' },
  float: { sql: 'FLOAT', family: 'float' },
  float64: { sql: 'DOUBLE', family: 'float' },
  double: { sql: 'DOUBLE', family: 'float' },
  utf8: { sql: 'VARCHAR', family: 'string' },
  large_utf8: { sql: 'VARCHAR', family: 'string' },
  string: { sql: 'VARCHAR', family: 'string' },
  varchar: { sql: 'VARCHAR', family: 'string' },
  text: { sql: 'VARCHAR', family: 'string' },
  boolean: { sql: 'BOOLEAN', family: 'boolean' },
  bool: { sql: 'BOOLEAN', family: 'boolean' },
  binary: { sql: 'BLOB', family: 'other' },
  large_binary: { sql: 'BLOB', family: 'other' },
  date32: { sql: 'DATE', family: 'other' },
  date64: { sql: 'DATE', family: 'other' },
  date: { sql: 'DATE', family: 'other' },
  timestamp: { sql: 'TIMESTAMP', family: 'other' },
};

/** Arrow time units → DuckDB timestamp types (DuckDB keeps time zones only at microseconds). */
const TIMESTAMP_UNITS: Record<string, string> = { s: 'TIMESTAMP_S', second: 'TIMESTAMP_S', ms: 'TIMESTAMP_MS', millisecond: 'TIMESTAMP_MS', us: 'TIMESTAMP', microsecond: 'TIMESTAMP', ns: 'TIMESTAMP_NS', nanosecond: 'TIMESTAMP_NS' };

export const TYPE_HINT = 'expected a type such as int64, int32, float64, utf8, boolean, date32, timestamp(us), decimal(10,2), list<int64> or struct<a:int64,b:utf8>';

/** Splits `a:int64, b:list<x,y>` at top-level commas (not inside <> or ()). */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (character === '<' || character === '(') depth++;
    else if (character === '>' || character === ')') depth--;
    else if (character === ',' && depth === 0) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim());
}

/** Parses a declared type; throws an Error whose message says what is wrong. */
export function parseFunctionType(text: string): FunctionType {
  const trimmed = text.trim();
  const lower = trimmed.toLowerCase();
  const primitive = PRIMITIVES[lower];
  if (primitive) return { kind: 'primitive', ...primitive };
  // `list<T>` / `large_list<T>`, and the Arrow display form `List(T)`.
  const list = /^(?:large_)?list\s*[<(](.*)[>)]$/is.exec(trimmed);
  if (list) return { kind: 'list', element: parseFunctionType(list[1]!) };
  const struct = /^struct\s*[<(](.*)[>)]$/is.exec(trimmed);
  if (struct) {
    const fields = splitTopLevel(struct[1]!).map((field) => {
      const colon = field.indexOf(':');
      if (colon <= 0) throw new Error(`struct field "${field}" must be written name:type`);
      return { name: field.slice(0, colon).trim(), type: parseFunctionType(field.slice(colon + 1)) };
    });
    return { kind: 'struct', fields };
  }
  const decimal = /^decimal(?:128|256)?\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)$/i.exec(trimmed);
  if (decimal) {
    const precision = Number(decimal[1]);
    const scale = Number(decimal[2]);
    if (precision < 1 || precision > 38 || scale > precision) throw new Error(`decimal(${precision},${scale}) is out of range: precision 1 to 38, scale at most the precision`);
    return { kind: 'primitive', sql: `DECIMAL(${precision},${scale})`, family: 'other' };
  }
  const timestamp = /^timestamp\s*\(\s*([a-z]+)\s*(?:,\s*(.+?)\s*)?\)$/i.exec(trimmed);
  if (timestamp) {
    const sql = TIMESTAMP_UNITS[timestamp[1]!.toLowerCase()];
    if (!sql) throw new Error(`timestamp unit "${timestamp[1]}" is unknown: expected s, ms, us or ns`);
    return { kind: 'primitive', sql: timestamp[2] ? 'TIMESTAMPTZ' : sql, family: 'other' };
  }
  // Arrow display forms of primitives: `Int64`, `Utf8`, `Float64` match case-insensitively above.
  throw new Error(`unknown type "${trimmed}": ${TYPE_HINT}`);
}

/** Quotes an identifier for DuckDB SQL. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The DuckDB SQL spelling of a parsed type. */
export function sqlType(type: FunctionType): string {
  switch (type.kind) {
    case 'primitive':
      return type.sql;
    case 'list':
      return `${sqlType(type.element)}[]`;
    case 'struct':
      return `STRUCT(${type.fields.map((field) => `${quoteIdentifier(field.name)} ${sqlType(field.type)}`).join(', ')})`;
  }
}

/** Shorthand: the DuckDB type of a declared type string. */
export function declaredSqlType(text: string): string {
  return sqlType(parseFunctionType(text));
}
