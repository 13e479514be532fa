import { QuarryError } from '../../../core/errors/quarry-error.js';

export const OTLP_GRPC_DEFAULT_PORT = 4317;
export const OTLP_HTTP_DEFAULT_PORT = 4318;
const METRICS_PATH = '/v1/metrics';

/** Where and how metrics are pushed, decided from `otel_exporter.endpoint` alone. */
export type OtlpTarget =
  | { readonly protocol: 'grpc'; readonly address: string }
  | { readonly protocol: 'http'; readonly url: string };

/**
 * Protocol inference (spec, runtime.telemetry.otel_exporter):
 * - `host` or `host:port` (no scheme) → OTLP over gRPC, port 4317 by default, plaintext;
 * - `http(s)://host[:port]/v1/metrics` → OTLP over HTTP, port 4318 by default.
 * An `http(s)://` URL without a path gets `/v1/metrics` (the only path a collector serves
 * metrics on); a bare `host:port/v1/metrics` is HTTP over `http://`.
 */
export function parseOtlpEndpoint(endpoint: string): OtlpTarget {
  const text = endpoint.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    if (text.includes('/')) return parseHttp(`http://${text}`, endpoint);
    return { protocol: 'grpc', address: withDefaultPort(text, OTLP_GRPC_DEFAULT_PORT, endpoint) };
  }
  if (scheme !== 'http' && scheme !== 'https') throw invalid(endpoint, `the scheme ${scheme}:// is not supported`);
  return parseHttp(text, endpoint);
}

function parseHttp(text: string, endpoint: string): OtlpTarget {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(endpoint, 'it is not a valid URL');
  }
  // URL drops a scheme's own port (https://host:443 has port ''), so look at what was written.
  const portWritten = /^[a-z]+:\/\/(?:[^@/]*@)?(?:\[[^\]]*\]|[^/:?#]*):\d+/i.test(text);
  if (!portWritten) url.port = String(OTLP_HTTP_DEFAULT_PORT);
  if (url.pathname === '' || url.pathname === '/') url.pathname = METRICS_PATH;
  return { protocol: 'http', url: url.toString() };
}

function withDefaultPort(hostPort: string, defaultPort: number, endpoint: string): string {
  // [::1]:4317, [::1], host:4317, host
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(hostPort);
  if (bracketed) return `[${bracketed[1]}]:${bracketed[2] ?? defaultPort}`;
  const parts = hostPort.split(':');
  if (parts.length === 1 && parts[0] !== '') return `${hostPort}:${defaultPort}`;
  if (parts.length === 2 && parts[0] !== '' && /^\d+$/.test(parts[1]!)) return hostPort;
  throw invalid(endpoint, 'expected host:port');
}

function invalid(endpoint: string, reason: string): QuarryError {
  return new QuarryError(
    'MANIFEST_INVALID',
    `runtime.telemetry.otel_exporter.endpoint "${endpoint}" is not usable: ${reason}; use host:port for OTLP/gRPC (e.g. localhost:4317) or http(s)://host:port/v1/metrics for OTLP/HTTP`,
  );
}
