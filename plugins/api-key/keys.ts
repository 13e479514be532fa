import { createHash, timingSafeEqual } from 'node:crypto';

/** One configured key, kept only as its SHA-256 digest: the key text itself is never stored or logged. */
interface ConfiguredKey {
  readonly digest: Buffer;
  readonly canWrite: boolean;
  readonly admin: boolean;
}

/** The caller a presented key stands for. */
export interface KeyMatch {
  /** `apikey:` and the first 12 hex digits of sha256(key): stable, and safe to log. */
  readonly id: string;
  readonly canWrite: boolean;
  /** Configured `:admin`: may write and sees every caller's task history. */
  readonly admin: boolean;
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * A configured key with its permission, as Spice reads it: split on the *last* colon;
 * `:rw` may write, `:ro` or no suffix may only read; any other suffix is part of the key
 * (so `a:b` is the read-only key `a:b`). Quarry adds `:admin`: may write, and sees what the
 * runtime scopes per caller (every caller's rows in `runtime.task_history`).
 */
export function parseKey(entry: string): { key: string; canWrite: boolean; admin: boolean } {
  const colon = entry.lastIndexOf(':');
  const suffix = colon < 0 ? '' : entry.slice(colon + 1);
  if (suffix === 'admin') return { key: entry.slice(0, colon), canWrite: true, admin: true };
  if (suffix === 'rw') return { key: entry.slice(0, colon), canWrite: true, admin: false };
  if (suffix === 'ro') return { key: entry.slice(0, colon), canWrite: false, admin: false };
  return { key: entry, canWrite: false, admin: false };
}

/**
 * The accepted keys. Matching hashes the presented key and compares it with every
 * configured digest in constant time, without stopping at the first match, so neither
 * the key's content nor its position in the list shows in the response time.
 */
export class KeyRing {
  readonly #keys: ConfiguredKey[];
  /** Configured entries that were empty (before or after their suffix) and so accept nothing. */
  readonly dropped: number;

  /** `entries` as configured (suffixes included); empty keys are left out and counted in `dropped`. */
  constructor(entries: readonly string[]) {
    this.#keys = [];
    this.dropped = 0;
    for (const entry of entries) {
      const { key, canWrite, admin } = parseKey(entry);
      if (key === '') {
        this.dropped += 1;
        continue;
      }
      this.#keys.push({ digest: sha256(key), canWrite, admin });
    }
  }

  get size(): number {
    return this.#keys.length;
  }

  /** The caller for `presented`, or undefined. An empty key never matches. */
  match(presented: string): KeyMatch | undefined {
    const digest = sha256(presented);
    let matched = false;
    let canWrite = false;
    let admin = false;
    for (const key of this.#keys) {
      const equal = timingSafeEqual(digest, key.digest);
      matched ||= equal;
      // The same key listed twice, once :rw: the stronger grant wins.
      canWrite ||= equal && key.canWrite;
      admin ||= equal && key.admin;
    }
    if (!matched || presented === '') return undefined;
    return { id: `apikey:${digest.toString('hex').slice(0, 12)}`, canWrite, admin };
  }
}
