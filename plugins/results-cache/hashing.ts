import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

/** The `hashing_algorithm` values of runtime.caching (spec). */
export type HashingAlgorithm = 'xxh3' | 'ahash' | 'siphash' | 'blake3' | 'xxh32' | 'xxh64' | 'xxh128';

/** Hashes a cache key's material (namespace, SQL or plan, parameters) to a hex string. */
export type KeyHasher = (material: string) => string;

/**
 * What each algorithm is here, for the docs and the start-up log. `ahash` is a Rust crate
 * with no JavaScript port (and its output is not stable across versions anyway): Quarry
 * uses what ahash stands for, a fast hash keyed per process so that keys cannot be chosen
 * to collide, as XXH3-64 with a random 192-byte secret drawn at start-up.
 */
export const HASHING_DESCRIPTIONS: Record<HashingAlgorithm, string> = {
  xxh3: 'XXH3-64 (@node-rs/xxhash, native)',
  ahash: 'ahash equivalent: XXH3-64 keyed with a random per-process 192-byte secret (@node-rs/xxhash); keys differ between processes',
  siphash: 'SipHash-2-4 keyed with a random per-process 128-bit key (siphash24, wasm); keys differ between processes',
  blake3: 'BLAKE3-256 (hash-wasm, wasm)',
  xxh32: 'XXH32 (xxhash-wasm)',
  xxh64: 'XXH64 (xxhash-wasm)',
  xxh128: 'XXH3-128 (@node-rs/xxhash, native)',
};

export interface HasherOptions {
  /**
   * Key of the keyed algorithms (`siphash`: 16 bytes; `ahash`: at least 136 bytes of XXH3
   * secret). Default: random per process, which is what makes them flooding-resistant;
   * give a fixed key only when several processes must agree on keys (a shared cache).
   */
  readonly key?: Uint8Array;
}

const require = createRequire(import.meta.url);
/** siphash24 is CommonJS without types: `(message, key16) => Uint8Array(8)`. */
type Siphash24 = (message: Uint8Array, key: Uint8Array) => Uint8Array;

const hex64 = (value: bigint) => value.toString(16).padStart(16, '0');
const hex32 = (value: number) => (value >>> 0).toString(16).padStart(8, '0');

/**
 * Builds the hasher; async because the wasm implementations compile on first use. Each
 * algorithm's library is imported here, when chosen, not at the top: start-up loads only
 * the one in use (hash-wasm alone takes ~100 ms to load).
 */
export async function createKeyHasher(algorithm: HashingAlgorithm, options: HasherOptions = {}): Promise<KeyHasher> {
  const xxh3 = async () => (await import('@node-rs/xxhash')).xxh3;
  const xxhash = async () => (await import('xxhash-wasm')).default();
  switch (algorithm) {
    case 'xxh3': {
      const { xxh64 } = await xxh3();
      return (material) => hex64(xxh64(material));
    }
    case 'xxh128': {
      const { xxh128 } = await xxh3();
      return (material) => xxh128(material).toString(16).padStart(32, '0');
    }
    case 'ahash': {
      const { xxh64WithSecret } = await xxh3();
      const secret = options.key ?? randomBytes(192);
      if (secret.byteLength < 136) throw new Error('the ahash (keyed XXH3) secret must be at least 136 bytes');
      return (material) => hex64(xxh64WithSecret(material, secret));
    }
    case 'siphash': {
      const key = options.key ?? randomBytes(16);
      if (key.byteLength !== 16) throw new Error('the SipHash key must be 16 bytes');
      const siphash24 = require('siphash24') as Siphash24;
      return (material) => Buffer.from(siphash24(Buffer.from(material, 'utf8'), key)).toString('hex');
    }
    case 'blake3': {
      // One hasher, reset per key: creating one per call would cost more than hashing.
      const hasher = await (await import('hash-wasm')).createBLAKE3();
      return (material) => hasher.init().update(material).digest('hex');
    }
    case 'xxh32': {
      const api = await xxhash();
      return (material) => hex32(api.h32(material));
    }
    case 'xxh64': {
      const api = await xxhash();
      return (material) => hex64(api.h64(material));
    }
  }
}
