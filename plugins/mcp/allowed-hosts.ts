/**
 * `runtime.mcp.allowed_hosts`: which `Host` (and `Origin`) values may reach `/v1/mcp`.
 * A browser page on `evil.example` can rebind its name to 127.0.0.1 and then talk to a
 * local runtime; its requests still carry `Host: evil.example`, which this check refuses.
 */

/** Used when `allowed_hosts` is not set: loopback names only, any port. */
export const DEFAULT_ALLOWED_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '::1'];

/** One allow-list entry: a host name, and the port and scheme when the entry gave them. */
interface HostPattern {
  readonly hostname: string;
  /** Undefined: any port. */
  readonly port: string | undefined;
  /** Set for origin URL entries (`https://app.example.com`): an `Origin` must use it too. */
  readonly scheme: string | undefined;
}

/** A `Host` or `Origin` value, split the same way. */
interface HostCandidate {
  readonly hostname: string;
  readonly port: string | undefined;
  readonly scheme: string | undefined;
}

const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443' };

/** `[::1]` → `::1`; names compare case-insensitively. */
function normalizeHostname(hostname: string): string {
  const unbracketed = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return unbracketed.toLowerCase();
}

/** Parses an authority (`host`, `host:port`, `[v6]`, `[v6]:port`, bare `::1`); undefined when malformed. */
function parseAuthority(authority: string): { hostname: string; port: string | undefined } | undefined {
  const text = authority.trim();
  if (text === '') return undefined;
  // A bare IPv6 address has several colons and no brackets: it cannot carry a port.
  if (!text.startsWith('[') && (text.match(/:/g)?.length ?? 0) > 1) return { hostname: normalizeHostname(text), port: undefined };
  try {
    const url = new URL(`http://${text}`);
    // URL drops `:80` for http; keep the port the text actually wrote.
    const wrotePort = /:(\d+)$/.exec(text)?.[1];
    if (url.username !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '') return undefined;
    return { hostname: normalizeHostname(url.hostname), port: wrotePort };
  } catch {
    return undefined;
  }
}

/** An origin URL (`https://host:port`): scheme, host and the effective port. */
function parseOrigin(text: string): HostCandidate | undefined {
  try {
    const url = new URL(text);
    const scheme = url.protocol.replace(/:$/, '').toLowerCase();
    return { hostname: normalizeHostname(url.hostname), port: url.port === '' ? DEFAULT_PORTS[scheme] : url.port, scheme };
  } catch {
    return undefined;
  }
}

function parsePattern(entry: string): HostPattern {
  if (entry.includes('://')) {
    const origin = parseOrigin(entry);
    if (origin) return origin;
  }
  const authority = parseAuthority(entry);
  // An entry that parses as nothing still matches itself literally, as a bare name.
  return { hostname: authority?.hostname ?? entry.trim().toLowerCase(), port: authority?.port, scheme: undefined };
}

function matches(pattern: HostPattern, candidate: HostCandidate, checkScheme: boolean): boolean {
  if (pattern.hostname !== candidate.hostname) return false;
  if (checkScheme && pattern.scheme !== undefined && candidate.scheme !== undefined && pattern.scheme !== candidate.scheme) return false;
  if (pattern.port === undefined) return true;
  const candidatePort = candidate.port ?? (candidate.scheme === undefined ? undefined : DEFAULT_PORTS[candidate.scheme]);
  return candidatePort === pattern.port;
}

/** The allow-list, parsed once at start-up. */
export interface HostAllowList {
  /** True with `["*"]`: every host accepted. */
  readonly disabled: boolean;
  /** Why this Host/Origin pair is refused, or undefined when it is accepted. */
  refusal(host: string | undefined, origin: string | undefined, listenerScheme: 'http' | 'https'): string | undefined;
}

export function createHostAllowList(entries: readonly string[] | undefined): HostAllowList {
  const list = entries ?? DEFAULT_ALLOWED_HOSTS;
  const disabled = list.some((entry) => entry.trim() === '*');
  const patterns = list.map(parsePattern);
  const allowedText = list.join(', ');
  return {
    disabled,
    refusal(host, origin, listenerScheme) {
      if (disabled) return undefined;
      const authority = host === undefined ? undefined : parseAuthority(host);
      // A Host without a port came in on the listener's default port.
      const hostCandidate = authority && { ...authority, scheme: listenerScheme };
      if (!hostCandidate || !patterns.some((pattern) => matches(pattern, hostCandidate, false))) {
        return `Host ${JSON.stringify(host ?? '')} is not allowed on /v1/mcp; runtime.mcp.allowed_hosts accepts: ${allowedText}`;
      }
      if (origin === undefined) return undefined;
      const originCandidate = parseOrigin(origin);
      if (!originCandidate || !patterns.some((pattern) => matches(pattern, originCandidate, true))) {
        return `Origin ${JSON.stringify(origin)} is not allowed on /v1/mcp; runtime.mcp.allowed_hosts accepts: ${allowedText}`;
      }
      return undefined;
    },
  };
}
