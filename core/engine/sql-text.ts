/** SQL text helpers for statements the runtime writes itself (never for user SQL). */
export function quoteLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** `schema.table` → `"schema"."table"`; a plain name → `"name"`. */
export function quoteQualifiedName(name: string): string {
  return name.split('.').map(quoteIdentifier).join('.');
}
