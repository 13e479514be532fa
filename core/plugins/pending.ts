import { isConfigured } from '../manifest/presence.js';
import type { PluginRuntime } from './types.js';

/**
 * For sections Quarry accepts before it implements them: a Spice pod keeps loading, and
 * the operator learns the setting does nothing yet instead of trusting it silently.
 */
export function notYetEffectiveMessage(path: string, topic?: string): string {
  return topic === undefined
    ? `${path} is configured but has no effect yet in this release`
    : `${path} is configured but has no effect yet: ${topic} is not implemented in this release`;
}

/**
 * Logs the warning when `path` was written in the manifest (defaults do not count).
 * Returns whether it warned. `issueTopic` names the missing feature: "result caching".
 */
export function warnNotYetEffective(runtime: Pick<PluginRuntime, 'manifest' | 'log'>, path: string, issueTopic: string): boolean {
  if (!isConfigured(runtime.manifest, path)) return false;
  runtime.log.warn(notYetEffectiveMessage(path, issueTopic));
  return true;
}
