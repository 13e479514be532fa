import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import test from 'ava';
import { KeyRing, parseKey } from '../../plugins/api-key/keys.js';
import { runCommand } from '../helpers/daemon.js';
import { startRuntime, writeManifestDirectory } from '../helpers/runtime.js';
import { ACCESS_FILES, KEYS, accessManifest } from './access-fixtures.js';

test('a key suffix is split on the last colon: :rw writes, :ro or none reads, :admin writes and sees all, anything else is part of the key', (t) => {
  t.deepEqual(parseKey('abc:rw'), { key: 'abc', canWrite: true, admin: false });
  t.deepEqual(parseKey('abc:ro'), { key: 'abc', canWrite: false, admin: false });
  t.deepEqual(parseKey('abc'), { key: 'abc', canWrite: false, admin: false });
  t.deepEqual(parseKey('a:b:rw'), { key: 'a:b', canWrite: true, admin: false });
  t.deepEqual(parseKey('a:b'), { key: 'a:b', canWrite: false, admin: false });
  t.deepEqual(parseKey('abc:admin'), { key: 'abc', canWrite: true, admin: true });
  t.deepEqual(parseKey('abc:RW'), { key: 'abc:RW', canWrite: false, admin: false }, 'suffixes are lower-case, like Spice');
});

test('the key ring matches any configured key and names the caller by a hash prefix', (t) => {
  const ring = new KeyRing(['first:ro', 'second:rw', 'second:ro', ':rw', '', 'boss:admin']);
  t.is(ring.size, 4);
  t.is(ring.dropped, 2, 'empty keys accept nothing');
  const id = `apikey:${createHash('sha256').update('second').digest('hex').slice(0, 12)}`;
  t.deepEqual(ring.match('second'), { id, canWrite: true, admin: false }, 'a key listed twice gets the stronger grant');
  t.is(ring.match('boss')?.admin, true);
  t.deepEqual(ring.match('first')?.canWrite, false);
  t.is(ring.match('third'), undefined);
  t.is(ring.match(''), undefined);
  t.is(ring.match('second '), undefined, 'keys compare exactly');
});

test('quarryd --check masks every key, literal or from a secret', async (t) => {
  const directory = writeManifestDirectory({ manifest: accessManifest(), files: ACCESS_FILES });
  try {
    const result = await runCommand('quarryd', [directory, '--check'], { env: { QUARRY_ACCESS_WRITER_KEY: KEYS.writer } });
    t.is(result.code, 0, result.stderr);
    t.regex(result.stdout, /api-key:/);
    for (const key of Object.values(KEYS)) t.false(result.stdout.includes(key) || result.stderr.includes(key), `--check shows ${key}`);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('auth: enabled: false turns keys off; an all-empty key list fails at --check, one whose secrets resolve empty at start-up', async (t) => {
  const off = await startRuntime({ manifest: accessManifest({ keys: false, runtime: '\n  auth:\n    api-key:\n      enabled: false' }), files: ACCESS_FILES });
  try {
    t.is((await off.sql('SELECT 1')).status, 200);
  } finally {
    await off.runtime.stop();
  }
  const written = await t.throwsAsync(startRuntime({ manifest: accessManifest({ keys: false, runtime: '\n  auth:\n    api-key:\n      keys: [":rw"]' }), files: ACCESS_FILES }));
  t.regex(written!.message, /is invalid:\n {2}- runtime\.auth\.api-key\.keys: every configured key is empty/);
  process.env['QUARRY_ACCESS_EMPTY_KEY'] = '';
  const resolved = await t.throwsAsync(startRuntime({ manifest: accessManifest({ keys: false, runtime: '\n  auth:\n    api-key:\n      keys: ["${ secrets:QUARRY_ACCESS_EMPTY_KEY }:rw"]' }), files: ACCESS_FILES }));
  t.regex(resolved!.message, /^plugin "api-key" failed in apply: runtime.auth.api-key.keys: every configured key is empty/);
});
