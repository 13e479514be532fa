/**
 * A function of one string key computed once per key: recorders on the request path resolve
 * the series of an attribute set once instead of on every request. Keys are label values
 * the runtime bounds (protocols, route templates, statuses, dataset lists), so the memo
 * stays small; past `limit` keys it is cleared rather than allowed to grow.
 */
export function memoise<Value>(compute: (key: string) => Value, limit = 10_000): (key: string) => Value {
  const known = new Map<string, Value>();
  return (key) => {
    let value = known.get(key);
    if (value === undefined) {
      if (known.size >= limit) known.clear();
      value = compute(key);
      known.set(key, value);
    }
    return value;
  };
}
