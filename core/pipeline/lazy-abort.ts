/**
 * An abort flag whose AbortSignal is made only when someone asks for it. Making an
 * AbortController costs a few microseconds (an EventTarget); a cache hit never needs one,
 * so the HTTP door hands the pipeline this instead and the engine asks when it runs.
 */
export class LazyAbort {
  #controller: AbortController | undefined;
  #aborted = false;

  get aborted(): boolean {
    return this.#aborted;
  }

  /** The signal; already aborted when `abort()` came first. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#controller?.abort();
  }
}
