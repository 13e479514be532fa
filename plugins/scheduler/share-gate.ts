/**
 * When an executor may scan a partitioned table without the partition predicate.
 *
 * A scan leg names the partitions it wants and normally carries their predicate
 * (`hash(key) % N IN (...)`), which costs a hash per row: most of a leg's time on a plain
 * aggregate. When the table holds exactly the wanted partitions the predicate keeps every row,
 * so a leg may ask for an "exact" scan without it. That is only safe while the table cannot
 * change under the scan: an admitted exact scan holds the dataset (a reader) from
 * `query.before` to `query.after`, and a reload of the executor's share (the writer) waits for
 * those readers and refuses new ones while it runs. A refused leg is sent again with its
 * predicate, which is correct whatever the table holds.
 */
export class ShareGate {
  /** Partition ids each dataset's table holds exactly; absent while unknown (after a failed reload). */
  readonly #loaded = new Map<string, ReadonlySet<string>>();
  readonly #readers = new Map<string, number>();
  readonly #reloading = new Set<string>();
  readonly #drained = new Map<string, () => void>();
  readonly #maxWaitMs: number;

  /** `maxWaitMs`: how long a reload waits for exact scans (a scan reads its snapshot once started). */
  constructor(datasets: readonly string[], maxWaitMs = 30_000) {
    // A partitioned table starts empty on an executor (its first load selects no row).
    for (const dataset of datasets) this.#loaded.set(dataset, new Set());
    this.#maxWaitMs = maxWaitMs;
  }

  /** Admits an exact scan of `partitions` when the table holds exactly them and no reload is under way. */
  admit(dataset: string, partitions: readonly string[]): boolean {
    const loaded = this.#loaded.get(dataset);
    if (loaded === undefined || this.#reloading.has(dataset)) return false;
    const wanted = new Set(partitions);
    if (wanted.size !== loaded.size || [...wanted].some((id) => !loaded.has(id))) return false;
    this.#readers.set(dataset, (this.#readers.get(dataset) ?? 0) + 1);
    return true;
  }

  /** The admitted scan ended (its result was sent, failed or was cancelled). */
  release(dataset: string): void {
    const readers = (this.#readers.get(dataset) ?? 1) - 1;
    this.#readers.set(dataset, readers);
    if (readers === 0) this.#drained.get(dataset)?.();
  }

  /** Before a reload swaps the table: no new exact scan, and the running ones finish (bounded). */
  async beginReload(dataset: string): Promise<void> {
    this.#reloading.add(dataset);
    if ((this.#readers.get(dataset) ?? 0) === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.#drained.set(dataset, resolve)),
      // A scan takes its snapshot when it starts, moments after admission: one still running this
      // long has long read the old table, and a reload must not wait on it forever.
      new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#maxWaitMs))),
    ]);
    clearTimeout(timer);
    this.#drained.delete(dataset);
  }

  /** After the reload: the ids the table now holds, or undefined when that is not known (it failed). */
  endReload(dataset: string, loaded: ReadonlySet<string> | undefined): void {
    if (loaded === undefined) this.#loaded.delete(dataset);
    else this.#loaded.set(dataset, loaded);
    this.#reloading.delete(dataset);
  }
}
