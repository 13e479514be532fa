import YAML from 'yaml';
import type { ManifestProblem } from './issues.js';
import { isMapping, parsePath, type PathSegment } from './path.js';

/**
 * `--set-runtime path=value` overrides, applied to the raw document before validation so
 * an override is checked exactly like the manifest text. The path is relative to
 * `runtime:` (`results_cache.enabled=false`, `tls.enabled=true`; a leading `runtime.` is
 * accepted too); the value is read as YAML (`false`, `30s`, `[a, b]`).
 */
export function applyRuntimeOverrides(document: Record<string, unknown>, overrides: readonly string[], problems: ManifestProblem[]): void {
  for (const flag of overrides) {
    const where = `--set-runtime ${JSON.stringify(flag)}`;
    const equals = flag.indexOf('=');
    const pathText = equals < 0 ? '' : flag.slice(0, equals).trim().replace(/^runtime\./, '');
    const segments = pathText === '' ? [] : parsePath(pathText);
    if (equals < 0 || segments.length === 0 || pathText.split('.').some((part) => part.trim() === '')) {
      problems.push({ path: where, message: 'expected path=value relative to runtime:, e.g. --set-runtime results_cache.enabled=false' });
      continue;
    }
    const valueText = flag.slice(equals + 1).trim();
    let value: unknown;
    try {
      value = valueText === '' ? '' : YAML.parse(valueText);
    } catch (error) {
      problems.push({ path: where, message: `the value is not valid YAML: ${(error as Error).message.split('\n')[0]}` });
      continue;
    }
    const failure = setCreating(document, ['runtime', ...segments], value);
    if (failure) problems.push({ path: where, message: failure });
  }
}

/** Sets a value, creating mappings on the way; says why when a step is not a mapping. */
function setCreating(root: Record<string, unknown>, segments: readonly PathSegment[], value: unknown): string | undefined {
  let current: unknown = root;
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    const last = index === segments.length - 1;
    if (typeof segment === 'number') {
      if (!Array.isArray(current) || segment > current.length) {
        return `cannot set ${describe(segments.slice(0, index + 1))}: no list entry ${segment} to set`;
      }
      if (last) current[segment] = value;
      else current = current[segment] ??= {};
      continue;
    }
    if (!isMapping(current)) return `cannot set ${describe(segments.slice(0, index + 1))}: ${describe(segments.slice(0, index))} is not a mapping`;
    if (last) current[segment] = value;
    else {
      current[segment] ??= typeof segments[index + 1] === 'number' ? [] : {};
      current = current[segment];
    }
  }
  return undefined;
}

function describe(segments: readonly PathSegment[]): string {
  return segments.map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : index === 0 ? segment : `.${segment}`)).join('');
}
