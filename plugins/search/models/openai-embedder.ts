import { QuarryError } from '../../../core/errors/quarry-error.js';
import type { OutboundClient } from '../../../core/outbound/client.js';
import type { EmbeddingModelConfig } from '../schema.js';
import { normalise, type Embedder } from './embedder.js';

const DEFAULT_ENDPOINT = 'https://api.openai.com/v1';
const DEFAULT_BATCH_SIZE = 64;

interface EmbeddingsAnswer {
  data?: Array<{ embedding?: unknown; index?: unknown }>;
}

/**
 * `from: openai:<model>`: any OpenAI-compatible `POST {endpoint}/embeddings` (OpenAI, Azure
 * OpenAI's compatible route, vLLM, Ollama, LM Studio, ...). Requests go through the runtime's
 * outbound client: timeouts, retries on 429/5xx, and source rate control by origin.
 */
export class OpenAiEmbedder implements Embedder {
  readonly name: string;
  readonly from: string;
  readonly identity: string;
  readonly batchSize: number;
  readonly #model: string;
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly #requestedDimensions: number | undefined;
  readonly #outbound: OutboundClient;
  #dimensions: number | undefined;

  constructor(config: EmbeddingModelConfig, outbound: OutboundClient) {
    this.name = config.name;
    this.from = config.from;
    const model = config.from.startsWith('openai:') ? config.from.slice('openai:'.length) : config.params.model;
    if (!model) throw new QuarryError('SEARCH_CONFIG_INVALID', `embeddings model ${config.name}: from: openai needs the model, as openai:<model> or params.model`);
    this.#model = model;
    const endpoint = (config.params.endpoint ?? DEFAULT_ENDPOINT).replace(/\/+$/, '');
    if (!/^https?:\/\//i.test(endpoint)) throw new QuarryError('SEARCH_CONFIG_INVALID', `embeddings model ${config.name}: params.endpoint must be an http:// or https:// URL, got ${endpoint}`);
    this.#url = `${endpoint}/embeddings`;
    const key = config.params.openai_api_key ?? config.params.api_key;
    this.#headers = { 'content-type': 'application/json', accept: 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) };
    this.#requestedDimensions = config.params.dimensions === undefined ? undefined : positiveInteger(config, 'dimensions');
    this.batchSize = config.params.batch_size === undefined ? DEFAULT_BATCH_SIZE : positiveInteger(config, 'batch_size');
    this.identity = `openai:${endpoint}:${model}:${this.#requestedDimensions ?? ''}`;
    this.#outbound = outbound;
  }

  dimensions(): number | undefined {
    return this.#dimensions;
  }

  async open(signal: AbortSignal): Promise<void> {
    await this.embed(['dimensions probe'], signal);
  }

  async embed(texts: readonly string[], signal: AbortSignal): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const body = JSON.stringify({ model: this.#model, input: texts, encoding_format: 'float', ...(this.#requestedDimensions ? { dimensions: this.#requestedDimensions } : {}) });
    let answer: EmbeddingsAnswer;
    try {
      const response = await this.#outbound.request({ url: this.#url, method: 'POST', headers: this.#headers, body, connector: 'embeddings', signal, maxResponseBytes: 256 * 1024 * 1024 });
      answer = JSON.parse(response.body!.toString('utf8')) as EmbeddingsAnswer;
    } catch (error) {
      throw this.#failure(error instanceof SyntaxError ? 'answered a body that is not JSON' : (error as Error).message, error);
    }
    return this.#vectors(answer, texts.length);
  }

  async close(): Promise<void> {}

  /** The answer's vectors in input order, each checked: a malformed answer never becomes data. */
  #vectors(answer: EmbeddingsAnswer, expected: number): Float32Array[] {
    const data = answer.data;
    if (!Array.isArray(data) || data.length !== expected) throw this.#failure(`answered ${Array.isArray(data) ? data.length : 'no'} embeddings for ${expected} inputs`);
    const vectors = new Array<Float32Array>(expected);
    data.forEach((item, position) => {
      const index = typeof item.index === 'number' ? item.index : position;
      const embedding = item.embedding;
      if (!Number.isInteger(index) || index < 0 || index >= expected || vectors[index] !== undefined) throw this.#failure(`answered an embedding with index ${String(item.index)}`);
      if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((value) => typeof value === 'number' && Number.isFinite(value))) {
        throw this.#failure('answered an embedding that is not a list of numbers (is encoding_format float supported?)');
      }
      vectors[index] = normalise(Float32Array.from(embedding as number[]));
    });
    const length = vectors[0]!.length;
    if (vectors.some((vector) => vector.length !== length)) throw this.#failure('answered embeddings of different lengths');
    if (this.#dimensions !== undefined && length !== this.#dimensions) throw this.#failure(`answered ${length} dimensions where it answered ${this.#dimensions} before`);
    this.#dimensions = length;
    return vectors;
  }

  #failure(reason: string, cause?: unknown): QuarryError {
    return new QuarryError('EMBEDDING_MODEL_FAILED', `embeddings model ${this.name} (${this.#url}): ${reason}`, { cause, details: { model: this.name } });
  }
}

function positiveInteger(config: EmbeddingModelConfig, key: string): number {
  const value = Number(config.params[key]);
  if (!Number.isInteger(value) || value <= 0) throw new QuarryError('SEARCH_CONFIG_INVALID', `embeddings model ${config.name}: params.${key} must be a positive integer, got ${config.params[key]}`);
  return value;
}
