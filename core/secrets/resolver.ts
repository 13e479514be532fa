import { QuarryError } from '../errors/quarry-error.js';
import type { SecretStoreEntry } from '../manifest/types.js';
import './env-store.js';
import './file-store.js';
import { replaceReferences, type SecretReference } from './references.js';
import { createSecretStore, type SecretStore } from './store.js';

/** A `${ ... }` that could not be resolved; collected so one error lists them all. */
export class MissingSecret extends Error {}

/**
 * Resolves references against the manifest's stores. It remembers every value it hands
 * out so the loader can keep them out of warnings, errors and `--check` output.
 */
export interface SecretResolver {
  /** Replaces every reference in `text`; `where` is the manifest path, for messages. */
  resolve(text: string, where: string): Promise<string>;
  /** Every secret value resolved so far (non-empty). */
  readonly values: ReadonlySet<string>;
  /** `env: process environment, /app/.env.local, /app/.env; k8s: files in /run/secrets` */
  describeStores(): string;
}

interface NamedStore {
  readonly name: string;
  readonly store: SecretStore;
}

/**
 * Builds the stores of `secrets:`; with no entries, the implicit `env` store (as in Spice:
 * listing stores replaces the default, so add `{ from: env }` to keep it).
 */
export async function createSecretResolver(options: { entries: readonly SecretStoreEntry[]; directory: string; env: NodeJS.ProcessEnv }): Promise<SecretResolver> {
  const entries: readonly SecretStoreEntry[] = options.entries.length > 0 ? options.entries : [{ from: 'env', name: 'env', params: {} }];
  const stores: NamedStore[] = [];
  for (const [index, entry] of entries.entries()) {
    const store = await createSecretStore(entry.from, { name: entry.name, params: entry.params, directory: options.directory, env: options.env }, `secrets[${index}]`);
    stores.push({ name: entry.name, store });
  }
  // `${ env:NAME }` reads the store named env when `secrets:` defines one, else the default
  // env store: the process environment, then .env.local and .env beside the manifest (as Spice).
  const envStore = stores.find((named) => named.name === 'env') ?? { name: 'env', store: await createSecretStore('env', { name: 'env', params: {}, directory: options.directory, env: options.env }, 'env') };
  const values = new Set<string>();
  const cache = new Map<string, string | undefined>();
  const describe = (named: NamedStore) => `${named.name}: ${named.store.describe?.() ?? named.store.kind}`;

  const lookup = async (reference: SecretReference, where: string): Promise<string> => {
    const key = `${reference.store}\u0000${reference.name}`;
    if (!cache.has(key)) cache.set(key, await find(reference, where));
    const value = cache.get(key);
    if (value === undefined) throw new MissingSecret(notFoundMessage(reference, where));
    if (value !== '') values.add(value);
    return value;
  };

  const find = async (reference: SecretReference, where: string): Promise<string | undefined> => {
    if (reference.store === 'env') return options.env[reference.name] ?? (await envStore.store.get(reference.name));
    if (reference.store === 'secrets') {
      // The last store defined wins, as in Spice.
      for (const named of [...stores].reverse()) {
        const value = await named.store.get(reference.name);
        if (value !== undefined) return value;
      }
      return undefined;
    }
    const named = stores.find((candidate) => candidate.name === reference.store);
    if (!named) {
      throw new QuarryError(
        'SECRET_NOT_FOUND',
        `secret store "${reference.store}" used at ${where} (in ${reference.text}) is not defined under secrets:; defined stores: ${stores.map((store) => store.name).join(', ')} (or use \${ secrets:${reference.name} } to search them all)`,
      );
    }
    return named.store.get(reference.name);
  };

  const notFoundMessage = (reference: SecretReference, where: string): string => {
    if (reference.store === 'env') return `environment variable "${reference.name}" used at ${where} is not set (${describe(envStore)})`;
    if (reference.store === 'secrets') {
      return `secret "${reference.name}" used at ${where} was not found in any secret store (${stores.map(describe).join('; ')})`;
    }
    const named = stores.find((candidate) => candidate.name === reference.store)!;
    return `secret "${reference.name}" used at ${where} was not found in secret store "${named.name}" (${named.store.describe?.() ?? named.store.kind})`;
  };

  return {
    resolve: (text, where) => replaceReferences(text, (reference) => lookup(reference, where)),
    values,
    describeStores: () => stores.map(describe).join('; '),
  };
}
