import type { PluginRuntime } from '../../../core/plugins/types.js';

/** A certificate and key (PEM) for the metrics listener, and a way to hear about rotations. */
export interface MetricsListenerTls {
  readonly cert: string;
  readonly key: string;
  /** Called with the new pair after each successful reload (SIGHUP). */
  onChange?(listener: (material: { cert: string; key: string }) => void): void;
}

/**
 * TLS for the `--metrics` listener: the runtime's TLS service (the same certificate as the
 * HTTP and Flight listeners, reloaded with them on SIGHUP). No client certificate is asked
 * for: the spec exempts the metrics listener from the client-auth gate.
 */
export function metricsListenerTls(runtime: Pick<PluginRuntime, 'tls'>): MetricsListenerTls | undefined {
  const service = runtime.tls;
  if (!service) return undefined;
  return {
    cert: service.material.cert,
    key: service.material.key,
    onChange: (listener) => {
      service.subscribe((material) => listener({ cert: material.cert, key: material.key }));
    },
  };
}
