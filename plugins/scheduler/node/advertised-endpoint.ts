import os from 'node:os';

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '']);

/**
 * Where other nodes reach this node's listener, bound at `bound` (`host:port`):
 * `--node-advertise-address` when it names a port (the operator said exactly how, e.g. behind
 * NAT); else, for a wildcard bind (0.0.0.0), the advertised host (or this machine's host
 * name) with the bound port; else the bound address itself (a specific interface, loopback in
 * tests: there the advertise address is only the node's id).
 */
export function advertisedEndpoint(bound: string, advertise: string | undefined): string {
  if (advertise !== undefined && /^(?:\[[^\]]+\]|[^:[\]]+):\d+$/.test(advertise)) return advertise;
  const split = /^(.*):(\d+)$/.exec(bound);
  if (!split) return bound;
  const [, host, port] = split as unknown as [string, string, string];
  if (!WILDCARD_HOSTS.has(host)) return bound;
  return `${advertise ?? os.hostname()}:${port}`;
}
