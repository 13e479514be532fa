import { QuarryError } from '../errors/quarry-error.js';

/**
 * The runtime's phase. Transitions are explicit and checked so that, say, a second
 * `start()` or a request arriving after `stopped` is refused instead of half-working.
 *
 *   created -> starting -> running -> draining -> stopped
 *                    \________________________/-> failed (start-up error)
 */
export type Phase = 'created' | 'starting' | 'running' | 'draining' | 'stopped' | 'failed';

const allowed: Record<Phase, Phase[]> = {
  created: ['starting', 'stopped'],
  starting: ['running', 'draining', 'failed'],
  running: ['draining'],
  draining: ['stopped'],
  failed: ['stopped'],
  stopped: [],
};

export class PhaseMachine {
  #phase: Phase = 'created';
  readonly #listeners = new Set<(phase: Phase) => void>();

  get current(): Phase {
    return this.#phase;
  }

  moveTo(next: Phase): void {
    if (!allowed[this.#phase].includes(next)) {
      throw new QuarryError('INTERNAL', `illegal runtime phase transition ${this.#phase} -> ${next}`);
    }
    this.#phase = next;
    for (const listener of this.#listeners) listener(next);
  }

  onChange(listener: (phase: Phase) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** True while new work may be accepted. */
  get acceptsWork(): boolean {
    return this.#phase === 'starting' || this.#phase === 'running';
  }
}
