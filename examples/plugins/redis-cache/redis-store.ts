import { Redis } from 'ioredis';

/**
 * The Redis side of the example cache. Three kinds of keys under one prefix:
 *   <prefix>entry:<hash>       the Arrow IPC bytes of one result (expires after item_ttl)
 *   <prefix>generation:<ds>    a counter bumped on every change of dataset <ds>
 *   <prefix>readers:<ds>       the set of entries computed from <ds>
 * Storing and invalidating are Lua scripts, so they are atomic against each other even
 * across quarryd processes: an entry is only stored if none of its datasets changed
 * since its query started (the generations read at lookup), which keeps a query that was
 * in flight during a refresh from storing its older result as fresh.
 */
const STORE_IF_CURRENT = `
local count = tonumber(ARGV[3])
for index = 1, count do
  if (redis.call('GET', KEYS[1 + index]) or '0') ~= ARGV[3 + index] then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
for index = 1, count do
  redis.call('SADD', KEYS[1 + count + index], KEYS[1])
  redis.call('PEXPIRE', KEYS[1 + count + index], ARGV[2])
end
return 1`;

const INVALIDATE = `
for index = 1, #KEYS, 2 do
  redis.call('INCR', KEYS[index])
  local entries = redis.call('SMEMBERS', KEYS[index + 1])
  for _, entry in ipairs(entries) do redis.call('DEL', entry) end
  redis.call('DEL', KEYS[index + 1])
end
return 1`;

export class RedisResultStore {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(url: string, prefix: string) {
    // Fail fast instead of queueing commands while Redis is away: a cache must not stall queries.
    this.#redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
    this.#prefix = prefix;
  }

  connect(): Promise<void> {
    return this.#redis.connect();
  }

  async close(): Promise<void> {
    await this.#redis.quit();
  }

  entryKey(hash: string): string {
    return `${this.#prefix}entry:${hash}`;
  }

  /** The change counters of the datasets, read when a query starts. */
  async generations(datasets: readonly string[]): Promise<string[]> {
    if (datasets.length === 0) return [];
    const values = await this.#redis.mget(...datasets.map((dataset) => this.#generationKey(dataset)));
    return values.map((value) => value ?? '0');
  }

  get(entryKey: string): Promise<Buffer | null> {
    return this.#redis.getBuffer(entryKey);
  }

  /** Stores the bytes unless a dataset changed since `generations` were read; returns whether it did. */
  async storeIfCurrent(entryKey: string, bytes: Uint8Array, ttlMs: number, datasets: readonly string[], generations: readonly string[]): Promise<boolean> {
    const keys = [entryKey, ...datasets.map((dataset) => this.#generationKey(dataset)), ...datasets.map((dataset) => this.#readersKey(dataset))];
    const stored = await this.#redis.eval(STORE_IF_CURRENT, keys.length, ...keys, Buffer.from(bytes), String(ttlMs), String(datasets.length), ...generations);
    return stored === 1;
  }

  async invalidate(datasets: readonly string[]): Promise<void> {
    if (datasets.length === 0) return;
    const keys = datasets.flatMap((dataset) => [this.#generationKey(dataset), this.#readersKey(dataset)]);
    await this.#redis.eval(INVALIDATE, keys.length, ...keys);
  }

  #generationKey(dataset: string): string {
    return `${this.#prefix}generation:${dataset}`;
  }

  #readersKey(dataset: string): string {
    return `${this.#prefix}readers:${dataset}`;
  }
}
