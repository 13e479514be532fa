import type { ZodType } from 'zod';
import { formatDuration, formatSize } from '../units.js';
import { expandPattern, isMapping, setAt, valueAt, type PathSegment } from './path.js';
import { childSchema, valueKind } from './schema-walk.js';

export const MASK = '***';

/**
 * Secret values shorter than this are not searched for inside other strings: a one-letter
 * "secret" would mask every word holding that letter. Fields a secret was put into are
 * masked whatever its length.
 */
export const MIN_GUARDED_SECRET_LENGTH = 4;

/** Entries of `params` / `headers` maps whose names say they hold a credential. */
const CREDENTIAL_NAME = /(pass(word)?|secret|token|bearer|credential|private|authorization|cookie|(^|_)key$)/i;
const CREDENTIAL_MAPS = new Set(['params', 'headers']);

/**
 * The resolved manifest as `quarryd --check` prints it: secret-derived values, key
 * material and credential-named parameters replaced by `***`, and durations and sizes
 * written back in manifest notation (`30s`, `128MiB`). As a last guard any string that
 * contains a resolved secret value is masked too, wherever it ended up.
 */
export function maskManifest(manifest: unknown, options: {
  schema: ZodType;
  secretDerived: readonly PathSegment[][];
  sensitivePatterns: readonly string[][];
  secretValues: ReadonlySet<string>;
}): unknown {
  const copy = structuredClone(manifest);
  for (const path of options.secretDerived) setAt(copy, path, MASK);
  for (const pattern of options.sensitivePatterns) {
    for (const path of expandPattern(copy, pattern)) {
      const value = valueAt(copy, path);
      if (typeof value === 'string' && value !== '') setAt(copy, path, MASK);
    }
  }
  return display(copy, options.schema, undefined, options.secretValues);
}

function containsSecret(text: string, secrets: ReadonlySet<string>): boolean {
  for (const secret of secrets) if (secret.length >= MIN_GUARDED_SECRET_LENGTH && text.includes(secret)) return true;
  return false;
}

function display(value: unknown, schema: ZodType | undefined, key: string | undefined, secrets: ReadonlySet<string>, parentKey?: string): unknown {
  if (typeof value === 'string') {
    if (containsSecret(value, secrets)) return MASK;
    if (parentKey !== undefined && CREDENTIAL_MAPS.has(parentKey) && key !== undefined && CREDENTIAL_NAME.test(key) && value !== '') return MASK;
    return value;
  }
  if (typeof value === 'number' && schema) {
    const kind = valueKind(schema);
    if (kind === 'duration') return formatDuration(value);
    if (kind === 'size') return formatSize(value);
    return value;
  }
  if (Array.isArray(value)) {
    return value.map((child, index) => display(child, schema && childSchema(schema, index), undefined, secrets));
  }
  if (isMapping(value)) {
    const result: Record<string, unknown> = {};
    for (const [childKey, child] of Object.entries(value)) {
      result[childKey] = display(child, schema && childSchema(schema, childKey), childKey, secrets, key);
    }
    return result;
  }
  return value;
}
