/** Waits shorter than this show nothing: a spinner that flashes by is noise. */
const SHOW_AFTER_MS = 1000;
const FRAMES = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';

/**
 * A line on a terminal while a query runs past a second: a spinner, the time so far and the
 * rows received (`⠹ 2.4s  120,000 rows received  Ctrl-C cancels`). `stop` erases it before the
 * result is printed.
 */
export class Spinner {
  #rows = 0;
  #frame = 0;
  #shown = false;
  readonly #started = performance.now();
  readonly #timer: NodeJS.Timeout;

  constructor(private readonly out: NodeJS.WritableStream) {
    this.#timer = setInterval(() => this.#draw(), 100);
    this.#timer.unref();
  }

  rows(received: number): void {
    this.#rows = received;
  }

  stop(): void {
    clearInterval(this.#timer);
    if (this.#shown) this.out.write('\r\u001b[2K');
  }

  #draw(): void {
    const elapsed = performance.now() - this.#started;
    if (elapsed < SHOW_AFTER_MS) return;
    this.#shown = true;
    const frame = FRAMES[this.#frame++ % FRAMES.length];
    this.out.write(`\r\u001b[2K${frame} ${(elapsed / 1000).toFixed(1)}s  ${this.#rows.toLocaleString('en-US')} rows received  Ctrl-C cancels`);
  }
}
