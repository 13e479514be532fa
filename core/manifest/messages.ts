/**
 * Wording shared by the manifest's error messages. Convention: a message that starts
 * with "expected" gets the offending value put in front by the issue formatter
 * (`invalid value "lfu": expected one of lru, tiny_lfu`), so schemas never repeat it.
 */

/** A zod `error` option for a required field: says what belongs there when it is missing. */
export function requiredField(hint: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? `required: ${hint}` : undefined);
}

/** How a value reads inside a message: strings quoted and shortened, containers named. */
export function showValue(value: unknown): string {
  if (typeof value === 'string') {
    const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return JSON.stringify(shown);
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

export function isScalar(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function');
}

/** "a, b or c" */
export function joinAlternatives(words: readonly string[], conjunction = 'or'): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} ${conjunction} ${words[words.length - 1]}`;
}

/** The noun for a zod type name in "expected ..." messages. */
export function typeNoun(expected: string): string {
  switch (expected) {
    case 'boolean':
      return 'true or false';
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'int':
      return 'an integer';
    case 'array':
    case 'tuple':
      return 'a list';
    case 'object':
    case 'record':
    case 'map':
      return 'a mapping';
    case 'null':
      return 'nothing';
    default:
      return `a ${expected}`;
  }
}
