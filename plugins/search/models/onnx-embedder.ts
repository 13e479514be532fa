import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { QuarryError } from '../../../core/errors/quarry-error.js';
import type { EmbeddingModelConfig } from '../schema.js';
import { normalise, type Embedder } from './embedder.js';

/** onnxruntime-node and the tokenizer load only when a local model is declared (tens of MB of native code). */
type OnnxRuntime = typeof import('onnxruntime-node');
type InferenceSession = import('onnxruntime-node').InferenceSession;
type Tokenizer = import('@huggingface/tokenizers').Tokenizer;

const DEFAULT_BATCH_SIZE = 16;
const DEFAULT_MAX_TOKENS = 256;

/** Where a local model's files are: the .onnx model and the Hugging Face tokenizer.json. */
export interface OnnxModelFiles {
  readonly model: string;
  readonly tokenizer: string;
  /** tokenizer_config.json, when present (special tokens, lower-casing). */
  readonly tokenizerConfig: string | undefined;
}

/** Finds the model's files from `from: file:<model>` and `files:`, relative to the manifest's folder. */
export function onnxModelFiles(config: EmbeddingModelConfig, directory: string): OnnxModelFiles {
  const listed = (config.files ?? []).map((file) => path.resolve(directory, file.path));
  const fromPath = config.from.startsWith('file:') ? path.resolve(directory, config.from.slice('file:'.length)) : undefined;
  const model = fromPath ?? listed.find((file) => file.endsWith('.onnx'));
  const where = `embeddings model ${config.name}`;
  if (!model) throw new QuarryError('SEARCH_CONFIG_INVALID', `${where}: from: file needs the .onnx model, as from: file:<path> or a files: entry ending in .onnx`);
  if (!model.endsWith('.onnx')) throw new QuarryError('SEARCH_CONFIG_INVALID', `${where}: ${model} is not an ONNX model (.onnx); local models run with onnxruntime`);
  const tokenizer = listed.find((file) => path.basename(file) === 'tokenizer.json') ?? path.join(path.dirname(model), 'tokenizer.json');
  const configCandidate = listed.find((file) => path.basename(file) === 'tokenizer_config.json') ?? path.join(path.dirname(tokenizer), 'tokenizer_config.json');
  for (const [file, what] of [[model, 'the model'], [tokenizer, 'the tokenizer (tokenizer.json, beside the model or in files:)']] as const) {
    if (!existsSync(file)) throw new QuarryError('SEARCH_CONFIG_INVALID', `${where}: ${what} ${file} does not exist`);
  }
  return { model, tokenizer, tokenizerConfig: existsSync(configCandidate) ? configCandidate : undefined };
}

/**
 * `from: file:<model.onnx>`: a sentence-embedding model run in process by onnxruntime-node.
 * Texts are tokenized with the model's tokenizer.json, padded into one batch, and the
 * model's output is mean-pooled over the real tokens (or taken as is when it is already one
 * vector per text, e.g. `sentence_embedding`), then scaled to length 1.
 */
export class OnnxEmbedder implements Embedder {
  readonly name: string;
  readonly from: string;
  readonly identity: string;
  readonly batchSize: number;
  readonly #files: OnnxModelFiles;
  readonly #maxTokens: number;
  readonly #threads: number;
  #session: InferenceSession | undefined;
  #ort: OnnxRuntime | undefined;
  #tokenizer: Tokenizer | undefined;
  #dimensions: number | undefined;

  constructor(config: EmbeddingModelConfig, directory: string) {
    this.name = config.name;
    this.from = config.from;
    this.#files = onnxModelFiles(config, directory);
    this.identity = `onnx:${this.#files.model}`;
    this.batchSize = integerParam(config, 'batch_size', DEFAULT_BATCH_SIZE);
    this.#maxTokens = integerParam(config, 'max_tokens', DEFAULT_MAX_TOKENS);
    // One thread by default: inference shares the machine with the engine's own threads.
    this.#threads = integerParam(config, 'threads', 1);
  }

  dimensions(): number | undefined {
    return this.#dimensions;
  }

  async open(signal: AbortSignal): Promise<void> {
    try {
      const [ort, tokenizers] = await Promise.all([import('onnxruntime-node'), import('@huggingface/tokenizers')]);
      const tokenizerJson = JSON.parse(await readFile(this.#files.tokenizer, 'utf8')) as object;
      const tokenizerConfig = this.#files.tokenizerConfig ? (JSON.parse(await readFile(this.#files.tokenizerConfig, 'utf8')) as object) : {};
      this.#tokenizer = new tokenizers.Tokenizer(tokenizerJson, tokenizerConfig);
      this.#session = await ort.InferenceSession.create(this.#files.model, { intraOpNumThreads: this.#threads, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
      this.#ort = ort;
    } catch (error) {
      throw this.#failure(`cannot load ${path.basename(this.#files.model)} or its tokenizer: ${(error as Error).message}`, error);
    }
    if (!this.#session.inputNames.includes('input_ids')) throw this.#failure(`the model's inputs are ${this.#session.inputNames.join(', ')}; expected input_ids (and attention_mask)`);
    await this.embed(['dimensions probe'], signal);
  }

  async embed(texts: readonly string[], signal: AbortSignal): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const session = this.#session;
    const ort = this.#ort;
    const tokenizer = this.#tokenizer;
    if (!session || !ort || !tokenizer) throw this.#failure('the model is not loaded');
    signal.throwIfAborted();
    // Tokens are at least a character: text beyond 32 characters a token cannot be kept, and
    // tokenizing it would only hold the event loop.
    const encoded = texts.map((text) => this.#truncate(tokenizer.encode(text.slice(0, this.#maxTokens * 32))));
    const width = Math.max(1, ...encoded.map((encoding) => encoding.ids.length));
    const ids = new BigInt64Array(texts.length * width);
    const mask = new BigInt64Array(texts.length * width);
    encoded.forEach((encoding, row) => {
      encoding.ids.forEach((id, column) => {
        ids[row * width + column] = BigInt(id);
        mask[row * width + column] = 1n;
      });
    });
    const shape = [texts.length, width];
    const feeds: Record<string, import('onnxruntime-node').Tensor> = {
      input_ids: new ort.Tensor('int64', ids, shape),
    };
    if (session.inputNames.includes('attention_mask')) feeds.attention_mask = new ort.Tensor('int64', mask, shape);
    if (session.inputNames.includes('token_type_ids')) feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(texts.length * width), shape);
    let output: import('onnxruntime-node').Tensor;
    try {
      const results = await session.run(feeds);
      const name = session.outputNames.includes('sentence_embedding') ? 'sentence_embedding' : session.outputNames[0]!;
      output = results[name]!;
    } catch (error) {
      throw this.#failure(`inference failed: ${(error as Error).message}`, error);
    }
    const vectors = this.#pool(output, mask, texts.length, width);
    const length = vectors[0]!.length;
    if (this.#dimensions !== undefined && this.#dimensions !== length) throw this.#failure(`produced ${length} dimensions where it produced ${this.#dimensions} before`);
    this.#dimensions = length;
    return vectors;
  }

  async close(): Promise<void> {
    await this.#session?.release();
    this.#session = undefined;
  }

  /** At most max_tokens ids; a cut sequence keeps its last (end-of-sequence) token. */
  #truncate(encoding: { ids: number[] }): { ids: number[] } {
    if (encoding.ids.length <= this.#maxTokens) return encoding;
    return { ids: [...encoding.ids.slice(0, this.#maxTokens - 1), encoding.ids.at(-1)!] };
  }

  /** [batch, tokens, dims] is mean-pooled over the real tokens; [batch, dims] is taken as is. */
  #pool(output: import('onnxruntime-node').Tensor, mask: BigInt64Array, rows: number, width: number): Float32Array[] {
    const data = output.data;
    if (!(data instanceof Float32Array)) throw this.#failure(`its output is ${output.type}; expected float32`);
    const dims = output.dims;
    if (dims.length === 2 && dims[0] === rows) {
      const size = dims[1]!;
      return Array.from({ length: rows }, (_, row) => normalise(data.slice(row * size, (row + 1) * size)));
    }
    if (dims.length !== 3 || dims[0] !== rows || dims[1] !== width) throw this.#failure(`its output has shape [${dims.join(', ')}]; expected [${rows}, ${width}, dims] or [${rows}, dims]`);
    const size = dims[2]!;
    return Array.from({ length: rows }, (_, row) => {
      const vector = new Float32Array(size);
      let tokens = 0;
      for (let column = 0; column < width; column += 1) {
        if (mask[row * width + column] === 0n) continue;
        tokens += 1;
        const offset = (row * width + column) * size;
        for (let index = 0; index < size; index += 1) vector[index] = vector[index]! + data[offset + index]!;
      }
      if (tokens > 0) for (let index = 0; index < size; index += 1) vector[index] = vector[index]! / tokens;
      return normalise(vector);
    });
  }

  #failure(reason: string, cause?: unknown): QuarryError {
    return new QuarryError('EMBEDDING_MODEL_FAILED', `embeddings model ${this.name} (${this.#files.model}): ${reason}`, { cause, details: { model: this.name } });
  }
}

function integerParam(config: EmbeddingModelConfig, key: string, fallback: number): number {
  if (config.params[key] === undefined) return fallback;
  const value = Number(config.params[key]);
  if (!Number.isInteger(value) || value <= 0) throw new QuarryError('SEARCH_CONFIG_INVALID', `embeddings model ${config.name}: params.${key} must be a positive integer, got ${config.params[key]}`);
  return value;
}
