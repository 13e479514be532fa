/**
 * Flight SQL filter patterns use SQL LIKE: `%` any run of characters, `_` exactly one, and
 * `\` (our SQL_SEARCH_STRING_ESCAPE) makes the next character literal. Identifiers in
 * DuckDB are case-insensitive, so matching is too.
 */
export function likeMatcher(pattern: string | undefined): (value: string) => boolean {
  if (pattern === undefined) return () => true;
  let source = '';
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index]!;
    if (character === '\\' && index + 1 < pattern.length) source += escapeRegExp(pattern[++index]!);
    else if (character === '%') source += '[\\s\\S]*';
    else if (character === '_') source += '[\\s\\S]';
    else source += escapeRegExp(character);
  }
  const expression = new RegExp(`^${source}$`, 'iu');
  return (value) => expression.test(value);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
