/** Secrets: stores, the `${ store:NAME }` syntax, and the resolver the manifest loader uses. */
export { registerSecretStoreKind, registeredSecretStoreKinds, createSecretStore } from './store.js';
export type { SecretStore, SecretStoreFactory, SecretStoreOptions } from './store.js';
export { createEnvStore, DEFAULT_ENV_FILES } from './env-store.js';
export { createFileStore } from './file-store.js';
export { parseDotenv } from './dotenv.js';
export { findReferences, hasReference, replaceReferences } from './references.js';
export type { SecretReference } from './references.js';
export { createSecretResolver, MissingSecret } from './resolver.js';
export type { SecretResolver } from './resolver.js';
