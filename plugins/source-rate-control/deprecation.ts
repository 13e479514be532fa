import type { SliceResolveContext } from '../../core/manifest/slice.js';
import type { SourceRateControlConfig } from './schema.js';

const OLD = 'runtime.params.codehost_max_concurrent_connections';
const NEW = 'runtime.source_rate_control.codehost_concurrent_connections_limit';

/** Maps the deprecated runtime param onto its replacement, unless the new key is set. */
export function migrateCodehostParam(context: SliceResolveContext): void {
  if (!context.isConfigured(OLD)) return;
  const runtime = context.manifest.runtime;
  const legacy = runtime.params.codehost_max_concurrent_connections;
  if (context.isConfigured(NEW)) {
    context.warn(`${OLD} is deprecated and ignored because ${NEW} is set; remove ${OLD}`);
    return;
  }
  if (legacy === undefined) return;
  (runtime.source_rate_control as SourceRateControlConfig).codehost_concurrent_connections_limit = legacy;
  context.warn(`${OLD} is deprecated: its value ${legacy} is applied as ${NEW}; set that instead`);
}
