import type { OutboundClient } from '../../../core/outbound/client.js';
import type { EmbeddingModelConfig } from '../schema.js';
import type { Embedder } from './embedder.js';
import { OnnxEmbedder } from './onnx-embedder.js';
import { OpenAiEmbedder } from './openai-embedder.js';

/** The embedder of one `embeddings:` entry (the schema already refused other providers). */
export function createEmbedder(config: EmbeddingModelConfig, options: { directory: string; outbound: OutboundClient }): Embedder {
  return config.from.startsWith('file') ? new OnnxEmbedder(config, options.directory) : new OpenAiEmbedder(config, options.outbound);
}
