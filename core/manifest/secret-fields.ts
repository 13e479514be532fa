import type { ManifestProblem } from './issues.js';
import { QuarryError } from '../errors/quarry-error.js';
import { MissingSecret, type SecretResolver } from '../secrets/resolver.js';
import { hasReference, malformedReferences } from '../secrets/references.js';
import { expandPattern, formatPath, isMapping, setAt, valueAt, type PathSegment } from './path.js';
import type { OwnedSlice } from './schema.js';
import { sliceExtras } from './slice.js';

/**
 * Where `${ secrets:NAME }` references are replaced. Replacement happens after
 * validation, so a secret value never reaches a validation message. The core's fields
 * are listed here; each plugin lists its own on its manifest slice (`secretFields`).
 */
export const CORE_SECRET_FIELDS = [
  'datasets.*.params.*',
  'datasets.*.acceleration.params.*',
  'runtime.tls.certificate',
  'runtime.tls.certificate_file',
  'runtime.tls.key',
  'runtime.tls.key_file',
  'runtime.tls.client_auth_ca',
  'runtime.tls.client_auth_ca_file',
  'plugins.*.params.**',
] as const;

/** Key material shown as `***` by --check even when written inline. */
export const CORE_SENSITIVE_FIELDS = ['runtime.tls.certificate', 'runtime.tls.key', 'runtime.tls.client_auth_ca'] as const;

function split(pattern: string): string[] {
  return pattern.split('.');
}

/** Core patterns plus those of running plugins' slices, each as path segments. */
export function fieldPatterns(slices: readonly OwnedSlice[], kind: 'secretFields' | 'sensitiveFields'): string[][] {
  const core = kind === 'secretFields' ? CORE_SECRET_FIELDS : CORE_SENSITIVE_FIELDS;
  const patterns = core.map(split);
  for (const owned of slices) {
    if (!owned.enabled) continue;
    for (const relative of sliceExtras(owned.slice)[kind] ?? []) patterns.push([...split(owned.slice.path), ...split(relative)]);
  }
  return patterns;
}

/**
 * Replaces references in every string at the given patterns, in place. Every missing
 * secret is reported in one SECRET_NOT_FOUND error. Returns the paths whose value came
 * (at least partly) from a secret, for masking.
 */
export async function resolveSecretFields(document: unknown, patterns: readonly string[][], resolver: SecretResolver, collectMissing?: ManifestProblem[]): Promise<PathSegment[][]> {
  const derived: PathSegment[][] = [];
  const missing: string[] = [];
  const malformed: string[] = [];
  const seen = new Set<string>();
  for (const pattern of patterns) {
    for (const path of expandPattern(document, pattern)) {
      const key = JSON.stringify(path);
      if (seen.has(key)) continue;
      seen.add(key);
      const value = valueAt(document, path);
      if (typeof value !== 'string') continue;
      for (const text of malformedReferences(value)) {
        malformed.push(`${formatPath(path)}: "${text}" starts like a secret reference but is not one: write \${ secrets:NAME } (or \${ env:NAME }), the name without spaces, closed by }`);
      }
      if (!hasReference(value)) continue;
      try {
        setAt(document, path, await resolver.resolve(value, formatPath(path)));
        derived.push(path);
      } catch (error) {
        if (!(error instanceof MissingSecret)) throw error;
        missing.push(error.message);
        collectMissing?.push({ path: formatPath(path), message: error.message });
      }
    }
  }
  if (malformed.length > 0) throw new QuarryError('SECRET_REFERENCE_INVALID', malformed.join('\n'), { details: { malformed: malformed.length } });
  if (missing.length > 0 && collectMissing === undefined) throw new QuarryError('SECRET_NOT_FOUND', missing.join('\n'), { details: { missing: missing.length } });
  return derived;
}

/** Warns about references left where nothing replaces them: a likely mistake, never silent. */
export function unreplacedReferenceWarnings(document: unknown, replaced: readonly PathSegment[][]): string[] {
  const skip = new Set(replaced.map((path) => JSON.stringify(path)));
  const warnings: string[] = [];
  const walk = (value: unknown, path: PathSegment[]) => {
    if (typeof value === 'string') {
      if (!skip.has(JSON.stringify(path)) && hasReference(value)) {
        warnings.push(`${formatPath(path)}: secret references are not replaced in this field (it is used as written); see docs/secrets.md for the fields that accept them`);
      }
    } else if (Array.isArray(value)) value.forEach((child, index) => walk(child, [...path, index]));
    else if (isMapping(value)) for (const [key, child] of Object.entries(value)) walk(child, [...path, key]);
  };
  walk(document, []);
  return warnings;
}
