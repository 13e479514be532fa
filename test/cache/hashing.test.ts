import test from 'ava';
import { createKeyHasher, HASHING_DESCRIPTIONS, type HashingAlgorithm } from '../../plugins/results-cache/hashing.js';

/**
 * Published reference vectors: xxHash's own test values (XXH32, XXH64, XXH3-64, XXH3-128
 * of "" and "abc" with seed 0), SipHash-2-4's paper vector (key 00..0f, message 00..0e;
 * the 8 output bytes in order), BLAKE3's official test vector for the empty input.
 */
const vectors: Array<[HashingAlgorithm, string, string]> = [
  ['xxh32', '', '02cc5d05'],
  ['xxh32', 'abc', '32d153ff'],
  ['xxh64', '', 'ef46db3751d8e999'],
  ['xxh64', 'abc', '44bc2cf5ad770999'],
  ['xxh3', '', '2d06800538d394c2'],
  ['xxh3', 'abc', '78af5f94892f3950'],
  ['xxh128', '', '99aa06d3014798d86001c324468d497f'],
  ['xxh128', 'abc', '06b05ab6733a618578af5f94892f3950'],
  ['blake3', '', 'af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262'],
];

for (const [algorithm, input, expected] of vectors) {
  test(`${algorithm}(${JSON.stringify(input)}) matches the reference vector`, async (t) => {
    const hash = await createKeyHasher(algorithm);
    t.is(hash(input), expected);
  });
}

test('siphash is SipHash-2-4: the reference vector with key 00..0f and message 00..0e', async (t) => {
  const key = Uint8Array.from({ length: 16 }, (_, index) => index);
  const hash = await createKeyHasher('siphash', { key });
  const message = String.fromCharCode(...Array.from({ length: 15 }, (_, index) => index));
  t.is(hash(message), 'e545be4961ca29a1');
  t.is(hash(''), '310e0edd47db6f72', 'vectors.h, message length 0');
});

test('ahash (keyed XXH3-64) equals XXH3-64 with the given secret, and is keyed per process by default', async (t) => {
  const secret = new Uint8Array(192).map((_, index) => (index * 7 + 3) & 0xff);
  const first = await createKeyHasher('ahash', { key: secret });
  const second = await createKeyHasher('ahash', { key: secret });
  t.is(first('abc'), second('abc'), 'deterministic for one secret');
  t.regex(first('abc'), /^[0-9a-f]{16}$/);
  const randomA = await createKeyHasher('ahash');
  const randomB = await createKeyHasher('ahash');
  t.not(randomA('abc'), randomB('abc'), 'two hashers draw two secrets');
  t.not(randomA('abc'), (await createKeyHasher('xxh3'))('abc'), 'not the unkeyed XXH3');
  await t.throwsAsync(createKeyHasher('ahash', { key: new Uint8Array(16) }), { message: /at least 136 bytes/ });
});

test('siphash with no key draws a random one per hasher (flooding resistance)', async (t) => {
  const a = await createKeyHasher('siphash');
  const b = await createKeyHasher('siphash');
  t.not(a('SELECT 1'), b('SELECT 1'));
  t.is(a('SELECT 1'), a('SELECT 1'));
});

test('every algorithm hashes multi-byte text, and each is described for the log', async (t) => {
  for (const algorithm of Object.keys(HASHING_DESCRIPTIONS) as HashingAlgorithm[]) {
    const hash = await createKeyHasher(algorithm);
    t.not(hash('SELECT \'café\''), hash('SELECT \'cafe\''), algorithm);
    t.regex(HASHING_DESCRIPTIONS[algorithm], /\w/);
  }
  t.regex(HASHING_DESCRIPTIONS.ahash, /XXH3-64 keyed with a random per-process/);
});
