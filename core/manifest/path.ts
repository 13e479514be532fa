/**
 * Paths into the manifest, in the one notation every message uses:
 * `datasets[1].acceleration.mode`, `runtime.auth.api-key.keys[0]`.
 */
export type PathSegment = string | number;

/** Formats segments as a dotted path with `[index]` for list positions. */
export function formatPath(segments: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of segments) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else {
      const key = String(segment);
      // Keys holding a dot or a bracket would make the path ambiguous: quote them.
      if (/[.[\]\s]/.test(key) || key === '') text += `[${JSON.stringify(key)}]`;
      else text += text === '' ? key : `.${key}`;
    }
  }
  return text === '' ? '(root)' : text;
}

/** Splits `runtime.caching.sql_results` or `datasets[0].name` into segments. */
export function parsePath(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  for (const part of path.split('.')) {
    const match = /^([^[\]]*)((?:\[\d+\])*)$/.exec(part);
    if (!match) {
      segments.push(part);
      continue;
    }
    if (match[1] !== '') segments.push(match[1]!);
    for (const index of match[2]!.matchAll(/\[(\d+)\]/g)) segments.push(Number(index[1]));
  }
  return segments;
}

export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at a path, or undefined when any step is missing. */
export function valueAt(root: unknown, segments: readonly PropertyKey[]): unknown {
  let current: unknown = root;
  for (const segment of segments) {
    if (Array.isArray(current) && typeof segment === 'number') current = current[segment];
    else if (isMapping(current) && typeof segment === 'string' && Object.hasOwn(current, segment)) current = current[segment];
    else return undefined;
  }
  return current;
}

/** True when the path exists in the document (even with a null value: `enabled:` was written). */
export function hasPath(root: unknown, segments: readonly PropertyKey[]): boolean {
  let current: unknown = root;
  for (const segment of segments) {
    if (Array.isArray(current) && typeof segment === 'number') {
      if (segment >= current.length) return false;
      current = current[segment];
    } else if (isMapping(current) && typeof segment === 'string' && Object.hasOwn(current, segment)) {
      current = current[segment];
    } else return false;
  }
  return true;
}

/**
 * Every concrete path matching a pattern: `*` matches one key or list index, `**` any
 * depth (zero or more steps). Only paths that exist in the document are returned.
 */
export function expandPattern(root: unknown, pattern: readonly string[]): PathSegment[][] {
  const results: PathSegment[][] = [];
  const walk = (value: unknown, index: number, at: PathSegment[]) => {
    if (index === pattern.length) {
      results.push(at);
      return;
    }
    const step = pattern[index]!;
    if (step === '**') {
      walk(value, index + 1, at);
      for (const [key, child] of children(value)) walk(child, index, [...at, key]);
      return;
    }
    if (step === '*') {
      for (const [key, child] of children(value)) walk(child, index + 1, [...at, key]);
      return;
    }
    if (isMapping(value) && Object.hasOwn(value, step)) walk(value[step], index + 1, [...at, step]);
  };
  walk(root, 0, []);
  return dedupe(results);
}

function children(value: unknown): Array<[PathSegment, unknown]> {
  if (Array.isArray(value)) return value.map((child, index) => [index, child]);
  if (isMapping(value)) return Object.entries(value);
  return [];
}

function dedupe(paths: PathSegment[][]): PathSegment[][] {
  const seen = new Set<string>();
  return paths.filter((path) => {
    const key = JSON.stringify(path);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Sets a value at an existing parent; used to write resolved secrets back. */
export function setAt(root: unknown, segments: readonly PathSegment[], value: unknown): void {
  const parent = valueAt(root, segments.slice(0, -1));
  const last = segments[segments.length - 1];
  if (Array.isArray(parent) && typeof last === 'number') parent[last] = value;
  else if (isMapping(parent) && typeof last === 'string') parent[last] = value;
}
