import { QuarryError } from '../../core/errors/quarry-error.js';
import type { SharedCache } from '../../core/cache/shared-caches.js';
import type { TaskInput } from '../../core/tasks/task-history.js';
import type { Embedder } from './models/embedder.js';
import { MAX_TEXT_LENGTH } from './search-request.js';

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
  readonly #cache: () => SharedCache | undefined;
  readonly #record: (task: TaskInput) => void;
  readonly #inFlight = new Map<string, Promise<Float32Array>>();

  constructor(options: { embedders: ReadonlyMap<string, Embedder>; cache: () => SharedCache | undefined; record: (task: TaskInput) => void }) {
    this.#embedders = options.embedders;
    this.#cache = options.cache;
    this.#record = options.record;
  }

  embedder(model: string): Embedder {
    const embedder = this.#embedders.get(model);
    if (!embedder) throw new QuarryError('SEARCH_INVALID_REQUEST', `no embeddings model named ${model}; declared: ${[...this.#embedders.keys()].join(', ') || 'none'}`);
    return embedder;
  }

  /**
   * Vectors of many texts (an engine chunk of `quarry_embed` calls): cached ones from the
   * cache, the others computed in the model's batches, each distinct text once.
   */
  async embedMany(model: string, texts: readonly string[], signal: AbortSignal): Promise<Float32Array[]> {
    const embedder = this.embedder(model);
    const distinct = [...new Set(texts)];
    const found = new Map<string, Float32Array>();
    const missing: string[] = [];
    for (const text of distinct) {
      checkLength(text);
      const cached = this.#cache()?.get(`${embedder.identity}\u0000${text}`);
      if (cached instanceof Float32Array) found.set(text, cached);
      else missing.push(text);
    }
    for (let first = 0; first < missing.length; first += embedder.batchSize) {
      const batch = missing.slice(first, first + embedder.batchSize);
      if (batch.length === 1) {
        found.set(batch[0]!, (await this.embed(model, batch[0]!, signal)).vector);
        continue;
      }
      const vectors = await this.#compute(embedder, batch, signal);
      batch.forEach((text, index) => {
        found.set(text, vectors[index]!);
        this.#store(embedder, text, vectors[index]!);
      });
    }
    return texts.map((text) => found.get(text)!);
  }

  async embed(model: string, text: string, signal: AbortSignal): Promise<QueryEmbedding> {
    checkLength(text);
    const embedder = this.embedder(model);
    const cache = this.#cache();
    const material = `${embedder.identity}\u0000${text}`;
    const cached = cache?.get(material);
    if (cached instanceof Float32Array) return { vector: cached, cached: true };
    let pending = this.#inFlight.get(material);
    if (!pending) {
      pending = this.#compute(embedder, [text], signal)
        .then(([vector]) => vector!)
        .finally(() => this.#inFlight.delete(material));
      this.#inFlight.set(material, pending);
    }
    const vector = await pending;
    this.#store(embedder, text, vector);
    return { vector, cached: false };
  }

  #store(embedder: Embedder, text: string, vector: Float32Array): void {
    const material = `${embedder.identity}\u0000${text}`;
    this.#cache()?.set(material, vector, { bytes: vector.byteLength + material.length * 2 });
  }

  /** One model call, one `text_embed` row (its input: the texts, one per line). */
  async #compute(embedder: Embedder, texts: readonly string[], signal: AbortSignal): Promise<Float32Array[]> {
    const startTime = new Date();
    const input = texts.join('\n');
    try {
      const vectors = await embedder.embed(texts, signal);
      this.#record({ task: 'text_embed', input, startTime, endTime: new Date(), labels: { model: embedder.name, outputs_produced: String(vectors.length) } });
      return vectors;
    } catch (error) {
      this.#record({ task: 'text_embed', input, startTime, endTime: new Date(), errorMessage: (error as Error).message, labels: { model: embedder.name } });
      throw error;
    }
  }
}

/** A query text is words to find, not a document: longer ones would hold the tokenizer (on the event loop) for long. */
function checkLength(text: string): void {
  if (text.length > MAX_TEXT_LENGTH) throw new QuarryError('SEARCH_INVALID_REQUEST', `a text to embed is ${text.length} characters; at most ${MAX_TEXT_LENGTH} are embedded at query time`);
}
