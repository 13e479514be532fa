import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { QuarryError } from '../errors/quarry-error.js';
import { registerSecretStoreKind, type SecretStore, type SecretStoreOptions } from './store.js';

/**
 * The `file` store: one file per secret in `params.directory`, the way Kubernetes and
 * Docker mount secrets (`/run/secrets/pg_pass` holds the value of `pg_pass`). The
 * trailing newline editors and `echo` add is trimmed.
 */
export async function createFileStore(options: Pick<SecretStoreOptions, 'name' | 'params' | 'directory'>): Promise<SecretStore> {
  const given = options.params.directory;
  if (given === undefined || given === '') {
    throw new QuarryError('SECRET_STORE_FAILED', `secret store "${options.name}" (file): params.directory is required, e.g. params: { directory: /run/secrets }`);
  }
  const directory = path.resolve(options.directory, given);
  const found = await stat(directory).catch(() => undefined);
  if (!found?.isDirectory()) {
    throw new QuarryError('SECRET_STORE_FAILED', `secret store "${options.name}" (file): directory ${directory} does not exist or is not a directory`);
  }
  return {
    kind: 'file',
    async get(name) {
      // A secret name is one file name: never a path that could leave the directory.
      if (name === '' || name.startsWith('.') || /[/\\]/.test(name)) return undefined;
      try {
        return (await readFile(path.join(directory, name), 'utf8')).replace(/[\r\n]+$/, '');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'EISDIR') return undefined;
        throw new QuarryError('SECRET_STORE_FAILED', `secret store "${options.name}" (file): cannot read secret "${name}": ${(error as Error).message}`, { cause: error });
      }
    },
    describe: () => `files in ${directory}`,
  };
}

registerSecretStoreKind('file', createFileStore);
