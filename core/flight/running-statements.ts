/**
 * DoGet streams running per statement handle, so the CancelFlightInfo action (and the
 * deprecated CancelQuery) can stop a query another call is streaming.
 */
export class RunningStatements {
  readonly #running = new Map<string, Set<AbortController>>();

  /** Registers a stream; the returned function unregisters it. */
  track(handle: Uint8Array, controller: AbortController): () => void {
    const key = Buffer.from(handle).toString('base64url');
    let set = this.#running.get(key);
    if (!set) this.#running.set(key, (set = new Set()));
    set.add(controller);
    return () => {
      set.delete(controller);
      if (set.size === 0) this.#running.delete(key);
    };
  }

  /** Aborts every stream of the handle; returns how many were running. */
  cancel(handle: Uint8Array): number {
    const key = Buffer.from(handle).toString('base64url');
    const set = this.#running.get(key);
    if (!set) return 0;
    for (const controller of set) controller.abort();
    return set.size;
  }
}
