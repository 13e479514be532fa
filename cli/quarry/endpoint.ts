import { UnsupportedEndpointError, UsageError } from './errors.js';

export const DEFAULT_ENDPOINT = 'http://127.0.0.1:8090';

/**
 * Where the runtime listens. The scheme picks the protocol, as in Spice's CLI: http(s) for
 * the HTTP API, grpc / grpc+tls for Arrow Flight (parsed now so the flag is stable; the
 * Flight transport is not written yet).
 */
export type Endpoint =
  | { protocol: 'http'; tls: boolean; url: URL; display: string }
  | { protocol: 'flight'; tls: boolean; url: URL; display: string };

const schemes: Record<string, { protocol: Endpoint['protocol']; tls: boolean }> = {
  'http:': { protocol: 'http', tls: false },
  'https:': { protocol: 'http', tls: true },
  'grpc:': { protocol: 'flight', tls: false },
  'grpc+tls:': { protocol: 'flight', tls: true },
};

export function parseEndpoint(text: string): Endpoint {
  const trimmed = text.trim();
  if (trimmed === '') throw new UsageError('--endpoint needs a URL, e.g. http://127.0.0.1:8090');
  // `127.0.0.1:8090` and `localhost:8090` are what people type; read them as plain HTTP.
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new UsageError(`--endpoint "${text}" is not a valid URL (expected e.g. http://127.0.0.1:8090)`);
  }
  const scheme = schemes[url.protocol];
  if (!scheme) {
    throw new UsageError(`--endpoint "${text}": unsupported scheme ${url.protocol}// (use http://, https://, grpc:// or grpc+tls://)`);
  }
  if (url.search || url.hash) throw new UsageError(`--endpoint "${text}" must not carry a query string or fragment`);
  // Keep a path prefix (a runtime behind a reverse proxy) but always end it with `/`, so
  // relative API paths resolve under it.
  if (!url.pathname.endsWith('/')) url.pathname = `${url.pathname}/`;
  const display = `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '')}`;
  return { ...scheme, url, display };
}

/** The URL of an API path (`v1/sql`) under the endpoint, keeping any path prefix. */
export function apiUrl(endpoint: Endpoint, path: string): URL {
  return new URL(path.replace(/^\//, ''), endpoint.url);
}

/** Commands that only exist on the HTTP API (status, refresh) need an http(s) endpoint. */
export function requireHttpEndpoint(endpoint: Endpoint, command: string): Endpoint & { protocol: 'http' } {
  if (endpoint.protocol !== 'http') {
    throw new UnsupportedEndpointError(
      `quarry ${command} talks to the HTTP API: pass an http:// or https:// --endpoint (got ${endpoint.display})`,
    );
  }
  return endpoint;
}
