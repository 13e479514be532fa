import type { ExecutionContext } from 'ava';
import type { ObjectStore } from '../../core/object-store/types.js';

/** The compare-and-swap contract every store must keep. */
export async function checkConditionalWrites(t: ExecutionContext, store: ObjectStore, key: string) {
  t.is(await store.get(key), undefined);
  const first = await store.putIfAbsent(key, Buffer.from('one'));
  t.truthy(first, 'creating a missing key succeeds');
  t.is(await store.putIfAbsent(key, Buffer.from('other')), undefined, 'creating an existing key loses');
  const read = await store.get(key);
  t.is(read!.body.toString(), 'one');
  const second = await store.putIfMatch(key, Buffer.from('two'), read!.version);
  t.truthy(second);
  t.not(second, first);
  t.is(await store.putIfMatch(key, Buffer.from('stale'), read!.version), undefined, 'replacing from a stale version loses');
  t.is((await store.get(key))!.body.toString(), 'two');
  await store.delete(key);
  t.is(await store.get(key), undefined);
  t.truthy(await store.putIfAbsent(key, Buffer.from('again')), 'a deleted key can be created again');
  t.is(await store.putIfMatch(key, Buffer.from('aba'), second!), undefined, 'a version from before the delete never matches again');
  t.is(await store.putIfMatch(`${key}.missing`, Buffer.from('x'), second!), undefined, 'replacing a key that does not exist loses (S3: 404 on If-Match)');
  t.is(await store.get(`${key}.missing`), undefined);
}

/** N writers increment one counter with read + putIfMatch; every lost race retries. No increment may be lost. */
export async function incrementConcurrently(store: ObjectStore, key: string, writers: number, each: number): Promise<{ value: number; lostRaces: number }> {
  let lostRaces = 0;
  await store.putIfAbsent(key, Buffer.from('0'));
  await Promise.all(
    Array.from({ length: writers }, async () => {
      for (let done = 0; done < each; ) {
        const current = (await store.get(key))!;
        if (await store.putIfMatch(key, Buffer.from(String(Number(current.body.toString()) + 1)), current.version)) done++;
        else lostRaces++;
      }
    }),
  );
  return { value: Number((await store.get(key))!.body.toString()), lostRaces };
}
