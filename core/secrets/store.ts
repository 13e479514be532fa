import { QuarryError } from '../errors/quarry-error.js';

/**
 * A place secrets come from: the process environment and .env files, a directory of
 * files, or a store a plugin adds (a vault, a cloud secret manager). `get` answers
 * undefined when the store does not hold the name; it throws only when the store itself
 * fails (unreachable, unreadable).
 */
export interface SecretStore {
  /** The store kind, as written in `secrets: [{ from: <kind> }]`. */
  readonly kind: string;
  get(name: string): Promise<string | undefined>;
  /** Where the store looks, for "not found" messages: `process environment, /app/.env`. Never a secret. */
  describe?(): string;
}

/** What a store factory is given: the `secrets:` entry and where the manifest lives. */
export interface SecretStoreOptions {
  /** The entry's name: `${ <name>:KEY }` reads this store alone. */
  readonly name: string;
  /** The part after `:` in `from: kind:selector`, when given. */
  readonly selector: string | undefined;
  readonly params: Readonly<Record<string, string>>;
  /** The manifest's directory: relative paths in params resolve against it. */
  readonly directory: string;
  /** The process environment (tests pass their own). */
  readonly env: NodeJS.ProcessEnv;
}

export type SecretStoreFactory = (options: SecretStoreOptions) => SecretStore | Promise<SecretStore>;

const factories = new Map<string, SecretStoreFactory>();

/**
 * Registers a store kind, the seam for secret-store plugins. Registering a kind twice
 * replaces it, so a plugin may swap a built-in store for its own.
 */
export function registerSecretStoreKind(kind: string, factory: SecretStoreFactory): void {
  factories.set(kind, factory);
}

export function registeredSecretStoreKinds(): string[] {
  return [...factories.keys()].sort();
}

/** Creates the store of a `secrets:` entry (`where`: `secrets[0]`); an unknown kind names the kinds there are. */
export async function createSecretStore(from: string, options: Omit<SecretStoreOptions, 'selector'>, where: string): Promise<SecretStore> {
  const separator = from.indexOf(':');
  const kind = separator < 0 ? from : from.slice(0, separator);
  const selector = separator < 0 ? undefined : from.slice(separator + 1);
  const factory = factories.get(kind);
  if (!factory) {
    throw new QuarryError(
      'SECRET_STORE_FAILED',
      `${where}.from: unknown secret store kind "${kind}"; available kinds: ${registeredSecretStoreKinds().join(', ')} (plugins may register more)`,
    );
  }
  try {
    return await factory({ ...options, selector });
  } catch (error) {
    // Name the manifest entry whatever the store's own message says.
    const code = error instanceof QuarryError ? error.code : 'SECRET_STORE_FAILED';
    throw new QuarryError(code, `${where}: ${(error as Error).message}`, { cause: error });
  }
}
