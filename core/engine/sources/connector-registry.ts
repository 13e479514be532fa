import { QuarryError } from '../../errors/quarry-error.js';
import type { Logger } from '../../log.js';
import type { DatasetConfig } from '../../manifest/types.js';
import type { DatasetConnector, DatasetSource } from './connector.js';

/** `scheme:rest` → the scheme in lower case and the rest; undefined when `from` has no scheme. */
export function splitFrom(from: string): { scheme: string; location: string } | undefined {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s.exec(from);
  return match ? { scheme: match[1]!.toLowerCase(), location: match[2]! } : undefined;
}

/** The connectors of this deployment by `from:` scheme: the core's `file` plus what plugins register. */
export class ConnectorRegistry {
  readonly #byScheme = new Map<string, { connector: DatasetConnector; owner: string }>();

  register(connector: DatasetConnector, owner: string): void {
    for (const raw of connector.schemes) {
      const scheme = raw.toLowerCase();
      const existing = this.#byScheme.get(scheme);
      if (existing) {
        throw new QuarryError('CONNECTOR_CONFLICT', `${owner} registered a connector for "${scheme}:", which ${existing.owner} already serves`);
      }
      this.#byScheme.set(scheme, { connector, owner });
    }
  }

  schemes(): string[] {
    return [...this.#byScheme.keys()].sort();
  }

  has(scheme: string): boolean {
    return this.#byScheme.has(scheme.toLowerCase());
  }

  /** Resolves a dataset's `from:` through the connector serving its scheme. */
  async resolve(config: DatasetConfig, options: { baseDirectory: string; log: Logger }): Promise<DatasetSource> {
    const parts = splitFrom(config.from);
    const served = this.schemes().map((scheme) => `${scheme}:`).join(', ');
    if (!parts) {
      throw new QuarryError('DATASET_SOURCE_UNSUPPORTED', `dataset ${config.name}: from "${config.from}" has no scheme; write it as scheme:location (served here: ${served})`);
    }
    const entry = this.#byScheme.get(parts.scheme);
    if (!entry) {
      throw new QuarryError(
        'DATASET_SOURCE_UNSUPPORTED',
        `dataset ${config.name}: no connector serves "${parts.scheme}:" in this deployment (served here: ${served}); add the plugin that provides it`,
      );
    }
    return entry.connector.resolve({
      name: config.name,
      from: config.from,
      scheme: parts.scheme,
      location: parts.location,
      params: config.params,
      baseDirectory: options.baseDirectory,
      log: options.log,
    });
  }
}
