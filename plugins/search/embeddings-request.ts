import { z } from 'zod';
import { QuarryError } from '../../core/errors/quarry-error.js';

/** Inputs one POST /v1/embeddings may carry. */
const MAX_INPUTS = 2_048;

export const EMBEDDINGS_REQUEST_SHAPE = 'send {"model": "<an embeddings: name>", "input": "text" or ["text", ...], "encoding_format": "float" | "base64"}';

/**
 * OpenAI's create-embeddings body, as its SDKs send it. `encoding_format` defaults to `float`;
 * OpenAI's Python SDK asks for `base64` (little-endian float32 bytes) unless told otherwise.
 * Token-id inputs are refused: the model tokenizes its own text.
 */
const embeddingsRequestSchema = z.strictObject({
  model: z.string({ error: 'expected model: the name of an embeddings: model' }).min(1),
  input: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(MAX_INPUTS)], {
    error: `expected input: a non-empty text or a list of 1 to ${MAX_INPUTS} non-empty texts (token ids are not accepted)`,
  }),
  encoding_format: z.enum(['float', 'base64'], { error: 'expected encoding_format float or base64' }).default('float'),
  dimensions: z.number().int().positive().optional(),
  /** OpenAI's end-user id: accepted, unused. */
  user: z.string().optional(),
});

export type EmbeddingsRequest = z.output<typeof embeddingsRequestSchema>;

export function parseEmbeddingsRequest(body: unknown): EmbeddingsRequest {
  if (body === undefined) throw new QuarryError('SEARCH_INVALID_REQUEST', `the embeddings body is empty; ${EMBEDDINGS_REQUEST_SHAPE}`);
  const parsed = embeddingsRequestSchema.safeParse(body);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message));
    throw new QuarryError('SEARCH_INVALID_REQUEST', `${problems.join('; ')}; ${EMBEDDINGS_REQUEST_SHAPE}`);
  }
  return parsed.data;
}

/** One vector as OpenAI encodes it: a list of numbers, or its float32 bytes (little-endian) in base64. */
export function encodedEmbedding(vector: Float32Array, format: 'float' | 'base64'): number[] | string {
  return format === 'float' ? Array.from(vector) : Buffer.from(Float32Array.from(vector).buffer).toString('base64');
}
