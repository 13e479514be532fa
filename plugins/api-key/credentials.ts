import type { InboundRequest } from '../../core/pipeline/types.js';

/** What a request says about its API key. */
export type PresentedKey =
  | { readonly kind: 'missing' }
  /** An `Authorization` header whose scheme is not Bearer (or has no token). */
  | { readonly kind: 'malformed' }
  | { readonly kind: 'key'; readonly key: string; readonly from: 'x-api-key' | 'authorization' };

/**
 * The key a request presents: `X-API-Key` when that header is there (it decides even if
 * an `Authorization: Bearer` key would be valid), else `Authorization: Bearer <key>` with
 * the scheme matched case-insensitively. The same for HTTP headers and Flight metadata;
 * the Flight Handshake has already turned Basic credentials into a Bearer header.
 */
export function presentedKey(request: InboundRequest): PresentedKey {
  const apiKey = request.headers['x-api-key'];
  if (apiKey !== undefined) return { kind: 'key', key: apiKey.trim(), from: 'x-api-key' };
  const authorization = request.headers['authorization']?.trim();
  if (authorization === undefined || authorization === '') return { kind: 'missing' };
  const match = /^(\S+)(?:\s+(.*))?$/.exec(authorization);
  const scheme = match?.[1] ?? '';
  const token = match?.[2]?.trim() ?? '';
  if (scheme.toLowerCase() !== 'bearer' || token === '') return { kind: 'malformed' };
  return { kind: 'key', key: token, from: 'authorization' };
}
