import { QuarryError } from '../../core/errors/quarry-error.js';
import type { DatasetConfig } from '../../core/manifest/types.js';
import type { ChunkingConfig } from '../../core/manifest/sections/search-columns.js';

/** A text column a search reads: full-text indexed, embedded, or both. */
export interface SearchColumn {
  readonly name: string;
  /** 1-based position among the dataset's search columns: names the column's index tables. */
  readonly ordinal: number;
  readonly fullText: boolean;
  readonly embedding: { readonly model: string; readonly chunking: ChunkingConfig | undefined } | undefined;
}

/** A dataset with search columns, as the manifest declares it. */
export interface SearchDataset {
  readonly name: string;
  /** Columns naming a match in /v1/search answers (`primary_key`); empty when none is declared. */
  readonly rowId: readonly string[];
  readonly columns: readonly SearchColumn[];
}

function invalid(dataset: DatasetConfig, message: string): QuarryError {
  return new QuarryError('SEARCH_CONFIG_INVALID', `dataset ${dataset.name}: ${message}`, { details: { dataset: dataset.name } });
}

/**
 * The datasets with search columns: `columns[].full_text_search`, `columns[].embeddings` and
 * the older dataset-level `embeddings: [{column, use}]`. Refuses what cannot be served: a
 * model not declared under `embeddings:`, a dataset not accelerated (indexes are built from
 * the engine's copy), a column embedded twice. A column embedded with a declared model Quarry
 * does not run (`unserved`: name -> why) is left without vectors, with a warning.
 */
export function searchDatasets(datasets: readonly DatasetConfig[], models: ReadonlySet<string>, unserved: ReadonlyMap<string, string> = new Map()): { datasets: SearchDataset[]; warnings: string[] } {
  const found: SearchDataset[] = [];
  const warnings: string[] = [];
  for (const dataset of datasets) {
    const columns = new Map<string, { fullText: boolean; embedding: SearchColumn['embedding'] }>();
    const rowIds: string[][] = [];
    const entry = (name: string) => {
      let column = columns.get(name);
      if (!column) columns.set(name, (column = { fullText: false, embedding: undefined }));
      return column;
    };
    const embed = (name: string, model: string, chunking: ChunkingConfig | undefined) => {
      const reason = unserved.get(model);
      if (reason !== undefined) {
        warnings.push(`dataset ${dataset.name}: column ${name} gets no vectors: embeddings model ${model}: ${reason}`);
        return;
      }
      const declared = [...models, ...unserved.keys()];
      if (!models.has(model)) throw invalid(dataset, `column ${name} is embedded with "${model}", which is not an embeddings: model${declared.length > 0 ? ` (declared: ${declared.join(', ')})` : ' (none is declared)'}`);
      const column = entry(name);
      if (column.embedding) throw invalid(dataset, `column ${name} is embedded twice; one embeddings model per column is served`);
      column.embedding = { model, chunking: chunking?.enabled ? chunking : undefined };
    };
    for (const column of dataset.columns ?? []) {
      if (column.full_text_search?.enabled) {
        entry(column.name).fullText = true;
        if (column.full_text_search.row_id) rowIds.push(column.full_text_search.row_id);
      }
      for (const embedding of column.embeddings ?? []) {
        embed(column.name, embedding.from, embedding.chunking);
        if (embedding.row_id) rowIds.push(embedding.row_id);
      }
    }
    for (const embedding of dataset.embeddings ?? []) {
      embed(embedding.column, (embedding.use ?? embedding.from)!, embedding.chunking);
      if (embedding.column_pk) rowIds.push(embedding.column_pk);
    }
    if (columns.size === 0) continue;
    if (!dataset.acceleration || dataset.acceleration.enabled === false) {
      throw invalid(dataset, 'full_text_search and embeddings need an accelerated dataset (acceleration: {enabled: true}): indexes are built from the engine\'s copy and kept current on refresh');
    }
    const primaryKey = dataset.acceleration.primary_key === undefined ? [] : [dataset.acceleration.primary_key].flat();
    const rowId = rowIds[0] ?? primaryKey;
    if (rowIds.some((other) => other.join('\u0000') !== rowId.join('\u0000'))) throw invalid(dataset, `its columns name different row_id columns (${rowIds.map((ids) => ids.join('+')).join(' vs ')}); use one`);
    found.push({
      name: dataset.name,
      rowId,
      columns: [...columns.entries()].map(([name, column], index) => ({ name, ordinal: index + 1, ...column })),
    });
  }
  return { datasets: found, warnings };
}
