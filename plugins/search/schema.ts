import { z } from 'zod';
import { requiredField } from '../../core/manifest/messages.js';

/**
 * One `embeddings:` entry (Spice's shape): a model that turns text into vectors.
 * - `from: openai:<model>` (or `openai` with `params.model`): an OpenAI-compatible
 *   `POST <endpoint>/embeddings`, through the runtime's outbound client;
 * - `from: file:<path of a .onnx model>` (or `file` with the model among `files:`): run in
 *   process by onnxruntime-node, with the Hugging Face `tokenizer.json` found beside it or
 *   named in `files:`.
 */
export const embeddingModelSchema = z.strictObject({
  name: z
    .string({ error: requiredField('the model name datasets refer to, e.g. embed') })
    .regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, 'expected a name of letters, digits, _, . and -, not starting with a digit'),
  from: z
    .string({ error: requiredField('the provider: openai:<model> or file:<path to a .onnx model>') })
    .refine((from) => /^(openai(:.+)?|file(:.+)?)$/.test(from), {
      error: (issue) => `the embeddings provider '${String(issue.input).split(':')[0]}' is not supported: expected openai:<model> (any OpenAI-compatible endpoint) or file:<path to a .onnx model>`,
    }),
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
