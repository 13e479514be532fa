import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { QuarryError } from '../errors/quarry-error.js';
import { parseDotenv } from './dotenv.js';
import { registerSecretStoreKind, type SecretStore, type SecretStoreOptions } from './store.js';

/** Files the env store reads beside the manifest, highest precedence first. */
export const DEFAULT_ENV_FILES = ['.env.local', '.env'] as const;

/**
 * The `env` store, as Spice users know it: the process environment, then `.env.local`,
 * then `.env` beside the manifest (a variable already set in the process wins, as
 * dotenv loaders do; `.env.local` holds a developer's overrides of the shared `.env`).
 * `params.file_path` names one file to read instead of the two defaults.
 * A lookup tries the name as written, then upper-cased: `${ secrets:pg_pass }` finds PG_PASS.
 */
export async function createEnvStore(options: Pick<SecretStoreOptions, 'params' | 'directory' | 'env'>): Promise<SecretStore> {
  const explicit = options.params.file_path;
  const files = explicit !== undefined ? [path.resolve(options.directory, explicit)] : DEFAULT_ENV_FILES.map((name) => path.join(options.directory, name));
  // Lowest precedence first, so later files overwrite earlier ones in the merged map.
  const merged = new Map<string, string>();
  for (const file of [...files].reverse()) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && explicit === undefined) continue;
      throw new QuarryError('SECRET_STORE_FAILED', `env secret store: cannot read ${file}: ${(error as Error).message}`, { cause: error });
    }
    for (const [key, value] of parseDotenv(text)) merged.set(key, value);
  }
  const environment = options.env;
  const lookup = (name: string) => environment[name] ?? merged.get(name);
  return {
    kind: 'env',
    async get(name) {
      return lookup(name) ?? lookup(name.toUpperCase());
    },
    describe: () => ['process environment', ...files].join(', '),
  };
}

registerSecretStoreKind('env', createEnvStore);
