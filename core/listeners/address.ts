import { QuarryError } from '../errors/quarry-error.js';

/** `host:port`, `[v6]:port`, `:port` or `port` (then 127.0.0.1). Port 0 picks a free port. */
export function parseListenAddress(text: string, flag: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*))?:?(\d+)$/.exec(text.trim());
  const port = match ? Number(match[3]) : NaN;
  if (!match || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new QuarryError('LISTENER_FAILED', `${flag} "${text}" is not a listen address; use host:port, e.g. 127.0.0.1:8090 or 0.0.0.0:8090`);
  }
  return { host: match[1] ?? (match[2] || '127.0.0.1'), port };
}

export function formatAddress(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
