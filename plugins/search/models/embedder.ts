/** A model turning texts into vectors: one per `embeddings:` entry. */
export interface Embedder {
  /** The manifest's name for it. */
  readonly name: string;
  /** The manifest's `from:`, e.g. `openai:text-embedding-3-small`. */
  readonly from: string;
  /** The provider and model that identify its vectors (the embeddings cache's key). */
  readonly identity: string;
  /** Texts sent in one call at most. */
  readonly batchSize: number;
  /** Vector length; known after `open` (the first call asks the model). */
  dimensions(): number | undefined;
  /** Loads files or checks the endpoint with one call, so a broken model fails at start-up. */
  open(signal: AbortSignal): Promise<void>;
  /** One vector per text, in order (at most `batchSize` texts). */
  embed(texts: readonly string[], signal: AbortSignal): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/** Scales a vector to length 1, so cosine similarity is a dot product and scores compare across models. */
export function normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const length = Math.sqrt(sum);
  if (length > 0) for (let index = 0; index < vector.length; index += 1) vector[index] = vector[index]! / length;
  return vector;
}
