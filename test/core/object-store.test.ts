import test from 'ava';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import S3rver from 's3rver';
import { FileObjectStore } from '../../core/object-store/file-object-store.js';
import { openObjectStore } from '../../core/object-store/open-object-store.js';
import { startConditionalS3 } from '../helpers/conditional-s3.js';
import { checkConditionalWrites, incrementConcurrently } from '../helpers/object-store-contract.js';

const temporaryDirectory = () => mkdtempSync(path.join(os.tmpdir(), 'quarry-store-'));

test('file://: conditional create and replace, delete without ABA', async (t) => {
  const root = temporaryDirectory();
  try {
    await checkConditionalWrites(t, new FileObjectStore(root), 'rate-control/a.json');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('file://: concurrent compare-and-swap loses no update, and old versions are collected', async (t) => {
  const root = temporaryDirectory();
  try {
    const store = new FileObjectStore(root, undefined, { staleReadMs: 1000, collectAfterMs: 1500 });
    const { value, lostRaces } = await incrementConcurrently(store, 'counter', 8, 25);
    t.is(value, 200);
    t.log(`lost races retried: ${lostRaces}`);
    const current = await store.get('counter');
    await new Promise((resolve) => setTimeout(resolve, 1600));
    t.is(await store.putIfMatch('counter', Buffer.from('x'), current!.version), undefined, 'a version read longer ago than staleReadMs no longer matches');
    await store.put('counter', Buffer.from('201'));
    t.true(readdirSync(path.join(root, 'counter.versions')).length <= 5, 'versions older than collectAfterMs behind the newest four are collected');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('file://: compare-and-swap holds across processes', async (t) => {
  const root = temporaryDirectory();
  try {
    const store = new FileObjectStore(root);
    await store.putIfAbsent('shared', Buffer.from('0'));
    const script = `
      import { FileObjectStore } from ${JSON.stringify(path.resolve('core/object-store/file-object-store.ts'))};
      const store = new FileObjectStore(process.env.STORE_ROOT);
      for (let done = 0; done < 40; ) {
        const current = await store.get('shared');
        if (await store.putIfMatch('shared', Buffer.from(String(Number(current.body.toString()) + 1)), current.version)) done++;
      }
    `;
    const children = Array.from({ length: 3 }, () =>
      spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], { env: { ...process.env, STORE_ROOT: root }, stdio: 'inherit' }),
    );
    const codes = await Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve))));
    t.deepEqual(codes, [0, 0, 0]);
    t.is((await store.get('shared'))!.body.toString(), '120');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('s3://: conditional writes against an S3 endpoint that enforces If-None-Match and If-Match', async (t) => {
  const s3 = await startConditionalS3();
  try {
    const store = openObjectStore('s3://state-bucket/quarry/rc/', { objstore_endpoint: s3.endpoint, objstore_region: 'us-east-1', objstore_key: 'k', objstore_secret: 's' }, '/');
    await checkConditionalWrites(t, store, 'rate-control/a.json');
    t.true(s3.objects.has('/state-bucket/quarry/rc/rate-control/a.json'), 'keys live under the bucket and prefix of the URI');
    const { value } = await incrementConcurrently(store, 'counter', 6, 10);
    t.is(value, 60);
    t.true(s3.preconditionFailures() > 0, 'the server refused stale writes with 412');
    await store.close?.();
  } finally {
    await s3.close();
  }
});

test('s3://: plain get, put and delete against s3rver (which ignores conditional writes)', async (t) => {
  const directory = temporaryDirectory();
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: 'quarry-state' }] });
  const { port } = await server.run();
  try {
    const store = openObjectStore('s3://quarry-state/rate/', { objstore_endpoint: `http://127.0.0.1:${port}`, objstore_key: 'S3RVER', objstore_secret: 'S3RVER' }, '/');
    t.is(await store.get('missing.json'), undefined);
    const version = await store.put('ledger.json', Buffer.from('{"a":1}'));
    const read = await store.get('ledger.json');
    t.is(read!.body.toString(), '{"a":1}');
    t.is(read!.version, version, 'the ETag of a put is the version a get reports');
    t.truthy(await store.putIfMatch('ledger.json', Buffer.from('{"a":2}'), read!.version));
    t.is((await store.get('ledger.json'))!.body.toString(), '{"a":2}');
    await store.delete('ledger.json');
    t.is(await store.get('ledger.json'), undefined);
    await store.close?.();
  } finally {
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  }
});
