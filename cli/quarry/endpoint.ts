import { UsageError } from './errors.js';

/** Where `quarry sql` goes without --endpoint: quarryd's Flight SQL listener, as `spice sql` does. */
export const DEFAULT_FLIGHT_ENDPOINT = 'grpc://127.0.0.1:50051';
/** Where `quarry status` and `quarry refresh` go: they exist only on the HTTP API. */
export const DEFAULT_HTTP_ENDPOINT = 'http://127.0.0.1:8090';

/** quarryd's default Flight port, used when a grpc:// endpoint names none. */
const DEFAULT_FLIGHT_PORT = '50051';
/** gRPC's own default for TLS, used when a grpc+tls:// endpoint names no port. */
const DEFAULT_FLIGHT_TLS_PORT = '443';

/**
 * Where the runtime listens. The scheme picks the protocol, as in Spice's CLI: http(s) for
 * the HTTP API, grpc / grpc+tls for Arrow Flight SQL.
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

/** The scheme an endpoint typed without one gets from its port: quarryd's and the web's defaults. */
const SCHEME_BY_PORT: Record<string, string> = { '50051': 'grpc', '8090': 'http', '80': 'http', '443': 'https' };

/**
 * `defaultScheme` is the command's own (`grpc` for sql, `http` for status): an endpoint typed
 * without a scheme (`127.0.0.1:50051`) takes its port's (above), else that one.
 */
export function parseEndpoint(text: string, defaultScheme = 'http'): Endpoint {
  const trimmed = text.trim();
  if (trimmed === '') throw new UsageError('--endpoint needs a URL, e.g. grpc://127.0.0.1:50051 or http://127.0.0.1:8090');
  const port = /:(\d+)\/?$/.exec(trimmed)?.[1];
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `${SCHEME_BY_PORT[port ?? ''] ?? defaultScheme}://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new UsageError(`--endpoint "${text}" is not a valid URL (expected e.g. grpc://127.0.0.1:50051 or http://127.0.0.1:8090)`);
  }
  const scheme = schemes[url.protocol];
  if (!scheme) {
    throw new UsageError(`--endpoint "${text}": unsupported scheme ${url.protocol}// (use http://, https://, grpc:// or grpc+tls://)`);
  }
  if (url.search || url.hash) throw new UsageError(`--endpoint "${text}" must not carry a query string or fragment`);
  if (scheme.protocol === 'flight') return flightEndpoint(text, url, scheme.tls);
  // Keep a path prefix (a runtime behind a reverse proxy) but always end it with `/`, so
  // relative API paths resolve under it.
  if (!url.pathname.endsWith('/')) url.pathname = `${url.pathname}/`;
  const display = `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '')}`;
  return { ...scheme, url, display };
}

/**
 * gRPC routes calls by their method path, so a Flight endpoint is only host and port: a
 * path prefix could not be honoured and is refused rather than silently dropped.
 */
function flightEndpoint(text: string, url: URL, tls: boolean): Endpoint {
  if (url.hostname === '') throw new UsageError(`--endpoint "${text}" names no host (expected e.g. grpc://127.0.0.1:50051)`);
  if (url.username || url.password) throw new UsageError(`--endpoint "${text}" must not carry credentials: use --api-key`);
  if (url.pathname !== '' && url.pathname !== '/') {
    throw new UsageError(`--endpoint "${text}": a Flight endpoint is host:port only, without a path`);
  }
  if (url.port === '') url.port = tls ? DEFAULT_FLIGHT_TLS_PORT : DEFAULT_FLIGHT_PORT;
  return { protocol: 'flight', tls, url, display: `${url.protocol}//${url.host}` };
}

/** The gRPC target of a Flight endpoint: `host:port` (IPv6 hosts keep their brackets). */
export function flightAddress(endpoint: Endpoint): string {
  return endpoint.url.host;
}

/** The URL of an API path (`v1/sql`) under the endpoint, keeping any path prefix. */
export function apiUrl(endpoint: Endpoint, path: string): URL {
  return new URL(path.replace(/^\//, ''), endpoint.url);
}

/** Commands that only exist on the HTTP API (status, refresh) need an http(s) endpoint. */
export function requireHttpEndpoint(endpoint: Endpoint, command: string): Endpoint & { protocol: 'http' } {
  if (endpoint.protocol !== 'http') {
    throw new UsageError(
      `quarry ${command} talks to the HTTP API: pass an http:// or https:// --endpoint, or none for ${DEFAULT_HTTP_ENDPOINT} (got ${endpoint.display})`,
    );
  }
  return endpoint;
}
