import { QuarryError } from '../../core/errors/quarry-error.js';
import type { ResultCache } from '../results-cache/result-cache.js';
import type { TaskInput } from '../task-history/recorder.js';
import type { Embedder } from './models/embedder.js';

/** What one query embedding did: for the caller's response headers and metrics. */
export interface QueryEmbedding {
  readonly vector: Float32Array;
  readonly cached: boolean;
}

/**
 * Embeds search queries: the `embeddings` cache first (keyed by the model's provider and
 * identity and the exact text), the model otherwise. Each vector the model computes is a
 * `text_embed` task-history row. Concurrent requests for the same text share one call.
 */
export class QueryEmbeddings {
  readonly #embedders: ReadonlyMap<string, Embedder>;
  readonly #cache: () => ResultCache<unknown> | undefined;
  readonly #record: (task: TaskInput) => void;
  readonly #inFlight = new Map<string, Promise<Float32Array>>();

  constructor(options: { embedders: ReadonlyMap<string, Embedder>; cache: () => ResultCache<unknown> | undefined; record: (task: TaskInput) => void }) {
    this.#embedders = options.embedders;
    this.#cache = options.cache;
    this.#record = options.record;
  }

  embedder(model: string): Embedder {
    const embedder = this.#embedders.get(model);
    if (!embedder) throw new QuarryError('SEARCH_INVALID_REQUEST', `no embeddings model named ${model}; declared: ${[...this.#embedders.keys()].join(', ') || 'none'}`);
    return embedder;
  }

  async embed(model: string, text: string, signal: AbortSignal): Promise<QueryEmbedding> {
    const embedder = this.embedder(model);
    const cache = this.#cache();
    const material = `${embedder.identity}\u0000${text}`;
    const cached = cache?.get(material);
    if (cached instanceof Float32Array) return { vector: cached, cached: true };
    let pending = this.#inFlight.get(material);
    if (!pending) {
      pending = this.#compute(embedder, text, signal).finally(() => this.#inFlight.delete(material));
      this.#inFlight.set(material, pending);
    }
    const vector = await pending;
    cache?.set(material, vector, { bytes: vector.byteLength + material.length * 2 });
    return { vector, cached: false };
  }

  async #compute(embedder: Embedder, text: string, signal: AbortSignal): Promise<Float32Array> {
    const startTime = new Date();
    try {
      const [vector] = await embedder.embed([text], signal);
      this.#record({ task: 'text_embed', input: text, startTime, endTime: new Date(), labels: { model: embedder.name, outputs_produced: '1' } });
      return vector!;
    } catch (error) {
      this.#record({ task: 'text_embed', input: text, startTime, endTime: new Date(), errorMessage: (error as Error).message, labels: { model: embedder.name } });
      throw error;
    }
  }
}
