import { QuarryError } from '../../core/errors/quarry-error.js';
import { STAGE } from '../../core/hooks/stages.js';
import type { ManifestSectionSlice } from '../../core/manifest/slice.js';
import type { InboundRequest } from '../../core/pipeline/types.js';
import type { PluginRuntime, QuarryPlugin } from '../../core/plugins/types.js';
import { presentedKey } from './credentials.js';
import './errors.js';
import { KeyRing } from './keys.js';
import { authSchema, type AuthConfig } from './schema.js';

export const API_KEY_PLUGIN_NAME = 'api-key';

const slices: ManifestSectionSlice[] = [
  { path: 'runtime.auth', schema: authSchema, secretFields: ['api-key.keys.*'], sensitiveFields: ['api-key.keys.*'] },
];

/** Tells HTTP clients (and gRPC clients, as trailing metadata) which scheme to use. */
function refuse(request: InboundRequest, code: 'API_KEY_MISSING' | 'API_KEY_INVALID', message: string): QuarryError {
  request.responseHeaders['www-authenticate'] = 'Bearer';
  return new QuarryError(code, message);
}

const HOW_TO_SEND: Record<InboundRequest['protocol'], string> = {
  http: 'send it as "X-API-Key: <key>" or "Authorization: Bearer <key>"',
  mcp: 'send it as "X-API-Key: <key>" or "Authorization: Bearer <key>"',
  flight: 'send "authorization: Bearer <key>" metadata, or Handshake with Basic credentials (the password is the key)',
  internal: 'internal queries carry no key',
};

/**
 * The API-key scheme: decides a request's caller from its key, or refuses it. Messages
 * never contain the key sent, so neither logs nor responses can leak it.
 */
export function apiKeyScheme(keys: KeyRing): (request: InboundRequest) => QuarryError | undefined {
  return (request) => {
    const presented = presentedKey(request);
    if (presented.kind === 'missing') {
      return refuse(request, 'API_KEY_MISSING', `Missing API key: this runtime requires one; ${HOW_TO_SEND[request.protocol]}`);
    }
    if (presented.kind === 'malformed') {
      // The scheme is not echoed: a client sending a bare key (`Authorization: <key>`) would see it in the message.
      return refuse(request, 'API_KEY_INVALID', `Invalid authorization header: expected "Bearer <key>"; ${HOW_TO_SEND[request.protocol]}`);
    }
    const match = keys.match(presented.key);
    if (!match) {
      const where = presented.from === 'x-api-key' ? 'the X-API-Key header' : 'the Authorization header';
      return refuse(request, 'API_KEY_INVALID', `Invalid credentials: the API key in ${where} is not accepted`);
    }
    request.principal = { id: match.id, method: 'api-key', canWrite: match.canWrite, admin: match.admin, ...(match.canWrite ? {} : { readOnlyBecause: 'use a key with :rw' }) };
    return undefined;
  };
}

function configuredKeys(runtime: PluginRuntime): KeyRing | undefined {
  // Validated and secret-resolved by the manifest loader with this plugin's schema.
  const settings = (runtime.manifest.runtime['auth'] as AuthConfig)?.['api-key'];
  if (!settings?.enabled) return undefined;
  const keys = new KeyRing(settings.keys);
  if (keys.dropped > 0) runtime.log.warn(`runtime.auth.api-key.keys: ${keys.dropped} empty key(s) ignored`);
  if (keys.size === 0) {
    throw new QuarryError('MANIFEST_INVALID', 'runtime.auth.api-key.keys: every configured key is empty, so no request could authenticate; add a key or set enabled: false');
  }
  return keys;
}

/**
 * API-key authentication of every HTTP and Flight request except `/health` and
 * `/v1/ready`. Keys are read once at start-up: changing them needs a restart.
 */
export function createApiKeyPlugin(): QuarryPlugin {
  return {
    name: API_KEY_PLUGIN_NAME,
    manifest: slices,
    apply(runtime) {
      const keys = configuredKeys(runtime);
      if (!keys) return;
      const scheme = apiKeyScheme(keys);
      runtime.hooks.auth.tap({ name: API_KEY_PLUGIN_NAME, stage: STAGE.AUTHENTICATE }, scheme);
      runtime.log.info('API-key authentication enabled', { keys: keys.size });
    },
  };
}
