import { z } from 'zod';
import { requiredField } from '../messages.js';

/**
 * The search settings a dataset declares (Spice's shapes): full-text search and embeddings on
 * text columns. The manifest only validates them; the search plugin builds the indexes
 * (docs/search.md).
 */

/** Columns identifying a row in search answers (`primary_key` of a match): one name or a list. */
const rowIdSchema = z
  .union([z.string().min(1), z.array(z.string().min(1)).min(1)], { error: 'expected a column name or a list of column names' })
  .transform((value) => [value].flat());

/** How a long text is cut into pieces embedded one by one. Sizes count words (docs/search.md). */
export const chunkingSchema = z.strictObject({
  enabled: z.boolean().default(false),
  target_chunk_size: z.number().int().positive().max(8192).default(256).describe('Words per chunk (default 256).'),
  overlap_size: z.number().int().nonnegative().default(0).describe('Words the next chunk repeats from the end of the previous one (default 0).'),
  trim_whitespace: z.boolean().default(true),
}).refine((chunking) => chunking.overlap_size < chunking.target_chunk_size, { error: 'overlap_size must be smaller than target_chunk_size', path: ['overlap_size'] });

export type ChunkingConfig = z.output<typeof chunkingSchema>;

/** `columns[].embeddings[]`: the column is embedded with the model named by `from`. */
const columnEmbeddingSchema = z.strictObject({
  from: z.string({ error: requiredField('the name of an embeddings: model') }).min(1),
  row_id: rowIdSchema.optional(),
  chunking: chunkingSchema.optional(),
});

/** `columns[].full_text_search`: the column gets a BM25 full-text index. */
const fullTextSearchSchema = z.strictObject({
  enabled: z.boolean().default(true),
  row_id: rowIdSchema.optional(),
});

export const columnSchema = z.looseObject({
  name: z.string({ error: requiredField('the column name') }).min(1),
  description: z.string().optional(),
  embeddings: z.array(columnEmbeddingSchema).optional(),
  full_text_search: fullTextSearchSchema.optional(),
});

/** Spice's older dataset-level form: `embeddings: [{column, use, column_pk, chunking}]`. */
export const datasetEmbeddingSchema = z.strictObject({
  column: z.string({ error: requiredField('the text column to embed') }).min(1),
  use: z.string().min(1).optional(),
  from: z.string().min(1).optional(),
  column_pk: rowIdSchema.optional(),
  chunking: chunkingSchema.optional(),
}).refine((entry) => (entry.use ?? entry.from) !== undefined, { error: 'expected use: (or from:) naming an embeddings: model', path: ['use'] });

export type DatasetColumn = z.output<typeof columnSchema>;
export type DatasetEmbedding = z.output<typeof datasetEmbeddingSchema>;
