import test from 'ava';
import path from 'node:path';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { createEnvStore } from '../../core/secrets/env-store.js';
import { createFileStore } from '../../core/secrets/file-store.js';
import { createSecretResolver } from '../../core/secrets/resolver.js';
import { registerSecretStoreKind } from '../../core/secrets/store.js';
import { writeFiles } from '../manifest/helpers.js';

test('env store precedence: process environment, then .env.local, then .env', async (t) => {
  const directory = writeFiles({
    '.env': 'ONLY_DOTENV=from-env-file\nIN_BOTH=from-env-file\nEVERYWHERE=from-env-file\n',
    '.env.local': 'IN_BOTH=from-env-local\nEVERYWHERE=from-env-local\n',
  });
  const store = await createEnvStore({ params: {}, directory, env: { EVERYWHERE: 'from-process' } });
  t.is(await store.get('ONLY_DOTENV'), 'from-env-file');
  t.is(await store.get('IN_BOTH'), 'from-env-local');
  t.is(await store.get('EVERYWHERE'), 'from-process');
  t.is(await store.get('NOWHERE'), undefined);
  t.is(store.describe?.(), `process environment, ${path.join(directory, '.env.local')}, ${path.join(directory, '.env')}`);
});

test('env store lookups fall back to the upper-cased name', async (t) => {
  const store = await createEnvStore({ params: {}, directory: writeFiles({}), env: { PG_PASS: 'pw' } });
  t.is(await store.get('pg_pass'), 'pw');
});

test('env store with file_path reads that file instead of the defaults', async (t) => {
  const directory = writeFiles({ '.env': 'A=default\n', 'config/prod.env': 'A=prod\nB=only-prod\n' });
  const store = await createEnvStore({ params: { file_path: 'config/prod.env' }, directory, env: {} });
  t.is(await store.get('A'), 'prod');
  t.is(await store.get('B'), 'only-prod');
  const missing = createEnvStore({ params: { file_path: 'nope.env' }, directory, env: {} });
  const error = await t.throwsAsync(missing, { instanceOf: QuarryError });
  t.is((error as QuarryError).code, 'SECRET_STORE_FAILED');
});

test('file store: one file per secret, trailing newline trimmed, no path escapes', async (t) => {
  const directory = writeFiles({ 'secrets/pg_pass': 's3cret\n', 'secrets/windows': 'value\r\n', 'outside': 'nope' });
  const store = await createFileStore({ name: 'k8s', params: { directory: 'secrets' }, directory });
  t.is(await store.get('pg_pass'), 's3cret');
  t.is(await store.get('windows'), 'value');
  t.is(await store.get('missing'), undefined);
  t.is(await store.get('../outside'), undefined);
  t.is(await store.get('.hidden'), undefined);
  t.is(store.describe?.(), `files in ${path.join(directory, 'secrets')}`);
});

test('file store without a directory fails with the fix in the message', async (t) => {
  const error = await t.throwsAsync(createFileStore({ name: 'k8s', params: {}, directory: writeFiles({}) }));
  t.is(error!.message, 'secret store "k8s" (file): params.directory is required, e.g. params: { directory: /run/secrets }');
});

test('${ secrets:NAME } searches every store, the last defined first; ${ store:NAME } one store', async (t) => {
  const directory = writeFiles({ 'mounted/token': 'from-files\n', 'mounted/only_file': 'file-value\n', '.env': 'TOKEN=from-env\nONLY_ENV=env-value\n' });
  const resolver = await createSecretResolver({
    entries: [
      { from: 'env', name: 'env', params: {} },
      { from: 'file', name: 'k8s', params: { directory: 'mounted' } },
    ],
    directory,
    env: {},
  });
  t.is(await resolver.resolve('${ secrets:token }', 'x'), 'from-files');
  t.is(await resolver.resolve('${secrets:only_env}', 'x'), 'env-value');
  t.is(await resolver.resolve('${ k8s:only_file }', 'x'), 'file-value');
  t.is(await resolver.resolve('${ env:TOKEN }', 'x'), 'from-env', '${ env:... } reads the store named env');
  t.deepEqual([...resolver.values].sort(), ['env-value', 'file-value', 'from-env', 'from-files']);
});

test('${ env:NAME } reads the process environment, then .env.local, then .env beside the manifest', async (t) => {
  const directory = writeFiles({ '.env': 'FROM_FILE=1\nSHARED=from-env\nBOTH=env\n', '.env.local': 'BOTH=local\n' });
  const resolver = await createSecretResolver({ entries: [], directory, env: { HOME_DIR: '/home/app', SHARED: 'from-process' } });
  t.is(await resolver.resolve('${ env:HOME_DIR }', 'x'), '/home/app');
  t.is(await resolver.resolve('${ env:FROM_FILE }', 'x'), '1', 'as Spice: .env beside the manifest');
  t.is(await resolver.resolve('${ env:SHARED }', 'x'), 'from-process', 'the process environment wins');
  t.is(await resolver.resolve('${ env:BOTH }', 'x'), 'local', '.env.local wins over .env');
  const error = await t.throwsAsync(resolver.resolve('${ env:NOWHERE }', 'datasets[0].params.p'));
  t.is(error!.message, `environment variable "NOWHERE" used at datasets[0].params.p is not set (env: process environment, ${path.join(directory, '.env.local')}, ${path.join(directory, '.env')})`);
});

test('references inside longer strings, several per string, spaces optional', async (t) => {
  const resolver = await createSecretResolver({ entries: [], directory: writeFiles({}), env: { USER: 'app', PASS: 'pw' } });
  t.is(await resolver.resolve('postgres://${secrets:user}:${  secrets:PASS  }@db/${env:USER}', 'x'), 'postgres://app:pw@db/app');
  t.is(await resolver.resolve('no references ${here} or $env:X', 'x'), 'no references ${here} or $env:X');
});

test('a missing secret names the path and every store searched', async (t) => {
  const directory = writeFiles({});
  const resolver = await createSecretResolver({ entries: [], directory, env: {} });
  const error = await t.throwsAsync(resolver.resolve('${ secrets:api_key }', 'runtime.auth.api-key.keys[0]'));
  t.is(
    error!.message,
    `secret "api_key" used at runtime.auth.api-key.keys[0] was not found in any secret store (env: process environment, ${path.join(directory, '.env.local')}, ${path.join(directory, '.env')})`,
  );
});

test('registerSecretStoreKind adds a store kind usable from secrets:', async (t) => {
  registerSecretStoreKind('memory-test', (options) => ({
    kind: 'memory-test',
    get: async (name) => (name === 'answer' ? `${options.params.prefix ?? ''}42` : undefined),
    describe: () => 'an in-memory map',
  }));
  const resolver = await createSecretResolver({ entries: [{ from: 'memory-test', name: 'mem', params: { prefix: 'n=' } }], directory: writeFiles({}), env: {} });
  t.is(await resolver.resolve('${ mem:answer }', 'x'), 'n=42');
  const error = await t.throwsAsync(resolver.resolve('${ mem:question }', 'tools[0].params.q'));
  t.is(error!.message, 'secret "question" used at tools[0].params.q was not found in secret store "mem" (an in-memory map)');
});
