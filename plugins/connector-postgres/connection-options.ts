import { QuarryError } from '../../core/errors/quarry-error.js';
import type { ConnectorDataset } from '../../core/engine/sources/connector.js';
import { choiceParam } from '../../core/engine/sources/connector-params.js';
import type pg from 'pg';

export const SSL_MODES = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** The pg client settings of a dataset, from `pg_connection_string` or the separate keys (separate keys win). */
export function connectionOptions(dataset: ConnectorDataset): { config: pg.ClientConfig; sslMode: SslMode } {
  const params = dataset.params;
  const config: pg.ClientConfig = {};
  if (params['pg_connection_string'] !== undefined) config.connectionString = params['pg_connection_string'];
  if (params['pg_host'] !== undefined) config.host = params['pg_host'];
  if (params['pg_port'] !== undefined) {
    const port = Number(params['pg_port']);
    if (!Number.isInteger(port) || port < 1 || port > 65_535) {
      throw new QuarryError('POSTGRES_PARAMS_INVALID', `dataset ${dataset.name}: params.pg_port is "${params['pg_port']}"; expected a port number from 1 to 65535`);
    }
    config.port = port;
  }
  if (params['pg_db'] !== undefined) config.database = params['pg_db'];
  if (params['pg_user'] !== undefined) config.user = params['pg_user'];
  if (params['pg_pass'] !== undefined) config.password = params['pg_pass'];
  if (config.connectionString === undefined && config.host === undefined) {
    throw new QuarryError('POSTGRES_PARAMS_INVALID', `dataset ${dataset.name}: set params.pg_host (with pg_port, pg_db, pg_user, pg_pass) or params.pg_connection_string`);
  }
  const fromString = config.connectionString && /[?&]sslmode=([a-z-]+)/.exec(config.connectionString)?.[1];
  const sslMode = choiceParam(dataset, 'pg_sslmode', SSL_MODES, (SSL_MODES as readonly string[]).includes(fromString || '') ? (fromString as SslMode) : 'prefer', 'POSTGRES_PARAMS_INVALID');
  if (config.connectionString) config.connectionString = config.connectionString.replace(/([?&])sslmode=[a-z-]+&?/, '$1').replace(/[?&]$/, '');
  return { config, sslMode };
}

/** pg's `ssl` for a libpq sslmode (prefer is tried with TLS first, then without; see PostgresSource). */
export function sslOption(mode: SslMode): pg.ClientConfig['ssl'] {
  switch (mode) {
    case 'disable': return false;
    case 'prefer': case 'require': return { rejectUnauthorized: false };
    // verify-ca checks the chain but not the host name, as libpq does.
    case 'verify-ca': return { rejectUnauthorized: true, checkServerIdentity: () => undefined };
    case 'verify-full': return { rejectUnauthorized: true };
  }
}
