/**
 * The popularity estimate behind W-TinyLFU (Einziger, Friedman, Manes: "TinyLFU: A Highly
 * Efficient Cache Admission Policy"): a count-min sketch of 4-bit counters, 4 rows, packed
 * two to a byte, with a doorkeeper Bloom filter in front and periodic aging.
 *
 * - Doorkeeper: the first sighting of a key only sets its bits here, so the one-hit
 *   wonders of a scan never reach the counters; the estimate adds 1 when the bit is set.
 * - Aging: after `10 × width` recorded accesses every counter is halved and the doorkeeper
 *   cleared, so past popularity fades and the sketch follows a changing workload.
 * - Counters saturate at 15: the policy only compares "more popular than", and small
 *   counters keep the sketch at 2 bytes per tracked key.
 */
const ROWS = 4;
const MAX_COUNT = 15;
const MINIMUM_WIDTH = 64;
const SAMPLE_FACTOR = 10;

/** 32-bit FNV-1a of a string's UTF-16 code units, then murmur3's finaliser to spread bits. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

export class FrequencySketch {
  #width = 0;
  /** ROWS × width nibbles. */
  #counters = new Uint8Array(0);
  #doorkeeper = new Uint32Array(0);
  #additions = 0;
  #sampleSize = 0;

  constructor(expectedKeys = MINIMUM_WIDTH) {
    this.#resize(expectedKeys);
  }

  /** Counters per row (a power of two). */
  get width(): number {
    return this.#width;
  }

  /**
   * Grows the sketch when the cache holds more keys than it was sized for (sizes are in
   * bytes, so the key count is only known as it fills). A count-min sketch cannot be
   * rehashed, so the estimates of the keys still held are carried over: they are what
   * admission compares candidates against.
   */
  ensureCapacity(keys: number, heldHashes: () => Iterable<number>): void {
    if (keys <= this.#width) return;
    const carried = [...heldHashes()].map((hash) => [hash, this.frequency(hash)] as const);
    this.#resize(keys);
    for (const [hash, frequency] of carried) this.#seed(hash, frequency);
  }

  /** Records one access of the key (its 32-bit hash). */
  increment(hash: number): void {
    const second = secondHash(hash);
    if (this.#doorkeeperAdd(hash, second)) {
      let added = false;
      for (let row = 0; row < ROWS; row++) added = this.#incrementAt(this.#indexOf(hash, second, row)) || added;
      if (!added) return;
    }
    if (++this.#additions >= this.#sampleSize) this.#age();
  }

  /** Estimated accesses of the key since it was last aged out: 0 to 16. */
  frequency(hash: number): number {
    const second = secondHash(hash);
    let minimum = MAX_COUNT;
    for (let row = 0; row < ROWS; row++) minimum = Math.min(minimum, this.#countAt(this.#indexOf(hash, second, row)));
    return minimum + (this.#doorkeeperHas(hash, second) ? 1 : 0);
  }

  /** Sets a key's estimate to at least `frequency` (doorkeeper bit, then counters). */
  #seed(hash: number, frequency: number): void {
    if (frequency <= 0) return;
    const second = secondHash(hash);
    this.#doorkeeperAdd(hash, second);
    const count = Math.min(MAX_COUNT, frequency - 1);
    for (let row = 0; row < ROWS; row++) {
      const index = this.#indexOf(hash, second, row);
      const shift = (index & 1) << 2;
      const current = this.#countAt(index);
      if (current < count) this.#counters[index >>> 1] = (this.#counters[index >>> 1]! & ~(0x0f << shift)) | (count << shift);
    }
  }

  #resize(expectedKeys: number): void {
    let width = MINIMUM_WIDTH;
    while (width < expectedKeys) width *= 2;
    this.#width = width;
    this.#counters = new Uint8Array((ROWS * width) / 2);
    // 8 bits per key, 2 probes: about 5% false positives at capacity.
    this.#doorkeeper = new Uint32Array(width / 4);
    this.#sampleSize = SAMPLE_FACTOR * width;
    this.#additions = 0;
  }

  /** Row `row`'s counter for the key: double hashing gives independent-enough rows. */
  #indexOf(hash: number, second: number, row: number): number {
    return row * this.#width + ((hash + Math.imul(row + 1, second)) & (this.#width - 1));
  }

  #countAt(index: number): number {
    return (this.#counters[index >>> 1]! >>> ((index & 1) << 2)) & 0x0f;
  }

  #incrementAt(index: number): boolean {
    if (this.#countAt(index) === MAX_COUNT) return false;
    this.#counters[index >>> 1]! += 1 << ((index & 1) << 2);
    return true;
  }

  /** Sets the key's doorkeeper bits; true when they were all set already (seen before). */
  #doorkeeperAdd(hash: number, second: number): boolean {
    const first = this.#setBit(hash);
    const other = this.#setBit(hash + second);
    return first && other;
  }

  #doorkeeperHas(hash: number, second: number): boolean {
    return this.#hasBit(hash) && this.#hasBit(hash + second);
  }

  /** Sets one doorkeeper bit; true when it was set already. */
  #setBit(probe: number): boolean {
    const bit = (probe >>> 0) % (this.#doorkeeper.length * 32);
    const mask = 1 << (bit & 31);
    const word = this.#doorkeeper[bit >>> 5]!;
    this.#doorkeeper[bit >>> 5] = word | mask;
    return (word & mask) !== 0;
  }

  #hasBit(probe: number): boolean {
    const bit = (probe >>> 0) % (this.#doorkeeper.length * 32);
    return (this.#doorkeeper[bit >>> 5]! & (1 << (bit & 31))) !== 0;
  }

  /** Halves every counter (both nibbles of a byte at once) and forgets the doorkeeper. */
  #age(): void {
    for (let index = 0; index < this.#counters.length; index++) this.#counters[index] = (this.#counters[index]! >>> 1) & 0x77;
    this.#doorkeeper.fill(0);
    this.#additions = Math.floor(this.#additions / 2);
  }
}

/** A second, odd hash for double hashing (odd keeps every row's stride a unit mod 2^k). */
function secondHash(hash: number): number {
  let mixed = Math.imul(hash ^ (hash >>> 15), 0x2c1b3c6d);
  mixed ^= mixed >>> 12;
  return (mixed | 1) >>> 0;
}
