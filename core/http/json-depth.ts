/**
 * How deep JSON a request may nest. JSON.parse takes any depth, but code that walks the value
 * afterwards recurses (hashing parameters for a cache key, binding lists and structs): 5,000
 * nested arrays in `parameters` overflowed the stack. No SQL parameter or MCP message needs
 * more than a few levels.
 */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests arrays or objects deeper than `max` levels; walked without recursion. */
export function jsonDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
    }
  }
  return false;
}
