import { z } from 'zod';
import { requiredField } from '../../core/manifest/messages.js';

/**
 * One `embeddings:` entry (Spice's shape): a model that turns text into vectors.
 * - `from: openai:<model>` (or `openai` with `params.model`): an OpenAI-compatible
 *   `POST <endpoint>/embeddings`, through the runtime's outbound client;
 * - `from: file:<path of a .onnx model>` (or `file` with the model among `files:`): run in
 *   process by onnxruntime-node, with the Hugging Face `tokenizer.json` found beside it or
 *   named in `files:`.
 * Other providers (Spice's `huggingface:`, `azure:`, `bedrock:`, ...) are accepted and not
 * served: a warning names them, and columns embedded with them get no vectors.
 */
export const embeddingModelSchema = z.strictObject({
  name: z
    .string({ error: requiredField('the model name datasets refer to, e.g. embed') })
    .regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, 'expected a name of letters, digits, _, . and -, not starting with a digit'),
  // Any provider is accepted, so a Spice pod with a huggingface: model loads; those not served are warned about (servedModel).
  from: z.string({ error: requiredField('the provider: openai:<model> or file:<path to a .onnx model>') }).min(1),
  description: z.string().optional(),
  files: z.array(z.looseObject({ path: z.string({ error: requiredField('the file path') }).min(1) })).optional(),
  params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String)).default({}),
});

export const embeddingModelsSchema = z
  .array(embeddingModelSchema)
  .superRefine((entries, context) => {
    const seen = new Map<string, number>();
    entries.forEach((entry, index) => {
      const earlier = seen.get(entry.name);
      if (earlier !== undefined) context.addIssue({ code: 'custom', path: [index, 'name'], message: `duplicate embeddings model name "${entry.name}" (also [${earlier}])` });
      else seen.set(entry.name, index);
    });
  })
  .default([])
  .describe('Embedding models (OpenAI-compatible endpoints, local ONNX files) for vector search over dataset columns.');

export type EmbeddingModelConfig = z.output<typeof embeddingModelSchema>;

/** Why a declared model is not served, or undefined when Quarry runs it. */
export function unservedReason(config: EmbeddingModelConfig): string | undefined {
  if (/^openai(:.+)?$/.test(config.from)) return undefined;
  if (config.from.startsWith('file')) {
    const model = config.from.startsWith('file:') ? config.from.slice('file:'.length) : config.files?.find((file) => file.path.endsWith('.onnx'))?.path;
    if (model?.endsWith('.onnx')) return undefined;
    return `${model ?? 'its file'} is not an ONNX model (.onnx): local models run with onnxruntime; export the model to ONNX`;
  }
  return `the provider '${config.from.split(':')[0]}' is not served: Quarry runs openai:<model> (any OpenAI-compatible endpoint) and file:<path to a .onnx model>`;
}
