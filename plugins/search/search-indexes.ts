import type { RecordBatch } from 'apache-arrow';
import type { EngineApi } from '../../core/engine/engine-api.js';
import { quoteQualifiedName } from '../../core/engine/sql-text.js';
import { QuarryError } from '../../core/errors/quarry-error.js';
import type { Logger } from '../../core/log.js';
import { chunkText } from './chunking.js';
import {
  fullTextBuildStatements,
  fullTextHitsSql,
  fullTextStaging,
  fullTextTables,
  macroStatements,
  newTextsSql,
  pruneVectorsSql,
  SEARCH_SCHEMA,
  vectorHitsSql,
  vectorTable,
  vectorTableStatement,
  type FullTextTables,
  type MacroSources,
  type VectorColumn,
} from './index-sql.js';
import type { Embedder } from './models/embedder.js';
import type { SearchColumn, SearchDataset } from './search-datasets.js';
import { vectorBatch, vectorSchema, type EmbeddedChunk } from './vector-batches.js';

/** Chunks appended to a vector table per transaction. */
const APPEND_CHUNKS = 1024;

/** Where one dataset's indexes stand. */
interface IndexState {
  readonly dataset: SearchDataset;
  /** The generation searches read; the next build writes generation + 1 and then switches. */
  generation: number;
  fullText: FullTextTables | undefined;
  readonly vectors: Map<number, VectorColumn>;
  /** Why the last build failed; undefined once one succeeded. */
  error: string | undefined;
  building: Promise<void> | undefined;
  /** A change arrived during a build: build once more after it. */
  again: boolean;
  /** The dataset's column names as the last build found them. */
  columnNames: readonly string[];
  /** What the last builds cost, for /v1/status and docs/search.md. */
  lastBuild: { durationMs: number; textsEmbedded: number; chunksEmbedded: number } | undefined;
}

export interface SearchIndexOptions {
  /** The engine, read once start-up made it (the index is made in `apply`). */
  readonly engine: () => EngineApi;
  readonly log: Logger;
  readonly embedders: ReadonlyMap<string, Embedder>;
  /** Called after every build that changed what searches read: cached answers must go. */
  readonly changed: (dataset: string) => Promise<void>;
  readonly signal: AbortSignal;
}

/**
 * The search indexes of every searchable dataset, built in the engine after each load,
 * refresh and write: full-text tables rebuilt as a new generation and switched to in one
 * statement (the macros), vectors added for new texts only and dropped for texts gone.
 */
export class SearchIndexes {
  readonly #states = new Map<string, IndexState>();
  readonly #options: SearchIndexOptions;

  constructor(options: SearchIndexOptions) {
    this.#options = options;
  }

  /** The searchable datasets, known at start-up (before any loads). */
  configure(datasets: readonly SearchDataset[]): void {
    for (const dataset of datasets) {
      this.#states.set(dataset.name.toLowerCase(), { dataset, generation: 0, fullText: undefined, vectors: new Map(), error: undefined, building: undefined, again: false, columnNames: [], lastBuild: undefined });
    }
  }

  datasets(): SearchDataset[] {
    return [...this.#states.values()].map((state) => state.dataset);
  }

  dataset(name: string): SearchDataset | undefined {
    return this.#states.get(name.toLowerCase())?.dataset;
  }

  /** Column names of a dataset, as its last index build found them. */
  columnNames(name: string): readonly string[] {
    return this.#states.get(name.toLowerCase())?.columnNames ?? [];
  }

  /** Which methods can answer for a dataset now, and why not the others. */
  methods(name: string): { text: boolean; vector: boolean; notReady: string | undefined } {
    const state = this.#states.get(name.toLowerCase());
    if (!state) return { text: false, vector: false, notReady: undefined };
    const text = state.fullText !== undefined;
    const vector = state.vectors.size > 0;
    return { text, vector, notReady: text || vector ? undefined : this.#notReady(state) };
  }

  status(): Array<Record<string, unknown>> {
    return [...this.#states.values()].map((state) => ({
      dataset: state.dataset.name,
      full_text_columns: state.dataset.columns.filter((column) => column.fullText).map((column) => column.name),
      embedded_columns: state.dataset.columns.filter((column) => column.embedding).map((column) => ({ column: column.name, model: column.embedding!.model })),
      full_text_ready: state.fullText !== undefined,
      vectors_ready: state.vectors.size,
      building: state.building !== undefined,
      generation: state.generation,
      ...(state.error ? { error: state.error } : {}),
      ...(state.lastBuild ? { last_build: { duration_ms: state.lastBuild.durationMs, texts_embedded: state.lastBuild.textsEmbedded, chunks_embedded: state.lastBuild.chunksEmbedded } } : {}),
    }));
  }

  /** The macros as they are now (every dataset failing until its first build). */
  async installMacros(): Promise<void> {
    await this.#options.engine().runInternal(`CREATE SCHEMA IF NOT EXISTS ${SEARCH_SCHEMA}`);
    for (const statement of macroStatements(this.#sources())) await this.#options.engine().runInternal(statement);
  }

  /**
   * Builds a dataset's indexes from its current rows. A call during a build makes that build
   * run once more when it ends (changes are never missed, builds never overlap). Resolves when
   * the indexes reflect the rows as of the call; rejects with the build's failure.
   */
  rebuild(name: string): Promise<void> {
    const state = this.#states.get(name.toLowerCase());
    if (!state) return Promise.resolve();
    if (state.building) {
      // The running build's loop goes round once more; its promise covers that round too.
      state.again = true;
      return state.building;
    }
    const run = async (): Promise<void> => {
      do {
        state.again = false;
        await this.#build(state);
      } while (state.again && !this.#options.signal.aborted);
    };
    state.building = run().finally(() => (state.building = undefined));
    return state.building;
  }

  async #build(state: IndexState): Promise<void> {
    const started = performance.now();
    const { log } = this.#options;
    const engine = this.#options.engine();
    try {
      await this.#checkColumns(state);
      const generation = state.generation + 1;
      const previous = state.fullText;
      let fullText: FullTextTables | undefined;
      if (state.dataset.columns.some((column) => column.fullText)) {
        fullText = fullTextTables(state.dataset, generation);
        engine.sandbox.hideTables([fullText.docs.name, fullText.terms.name, fullTextStaging(state.dataset).name]);
        for (const statement of fullTextBuildStatements(state.dataset, fullText)) await engine.runInternal(statement);
      }
      let textsEmbedded = 0;
      let chunksEmbedded = 0;
      for (const column of state.dataset.columns) {
        if (!column.embedding) continue;
        const counts = await this.#embedColumn(state, column);
        textsEmbedded += counts.texts;
        chunksEmbedded += counts.chunks;
      }
      state.generation = generation;
      state.fullText = fullText;
      state.error = undefined;
      await this.installMacros();
      if (previous) for (const table of [previous.docs, previous.terms]) await engine.runInternal(`DROP TABLE IF EXISTS ${table.sql}`);
      state.lastBuild = { durationMs: Math.round(performance.now() - started), textsEmbedded, chunksEmbedded };
      log.info(`search index of ${state.dataset.name} built`, { duration_ms: state.lastBuild.durationMs, texts_embedded: textsEmbedded, chunks_embedded: chunksEmbedded, generation });
    } catch (error) {
      // The engine's first line says what is wrong; the rest repeats the statement.
      state.error = (error as Error).message.split('\n')[0]!;
      // Searches keep reading the previous generation (if any); the half-built one goes.
      const abandoned = fullTextTables(state.dataset, state.generation + 1);
      for (const table of [abandoned.docs, abandoned.terms]) await engine.runInternal(`DROP TABLE IF EXISTS ${table.sql}`).catch(() => undefined);
      log.error(`search index of ${state.dataset.name} failed to build: ${state.error}`);
      await this.installMacros().catch(() => undefined);
      throw error;
    } finally {
      await this.#options.changed(state.dataset.name);
    }
  }

  /** Every search column (and row_id column) exists, and search columns hold text. */
  async #checkColumns(state: IndexState): Promise<void> {
    const rows = await this.#options.engine().runInternal(`SELECT column_name, column_type FROM (DESCRIBE ${quoteQualifiedName(state.dataset.name)})`, [], { readLive: false });
    const types = new Map(rows.map((row) => [String(row['column_name']), String(row["column_type"])]));
    state.columnNames = [...types.keys()];
    const known = () => [...types.keys()].join(', ');
    for (const column of state.dataset.columns) {
      const type = types.get(column.name);
      if (type === undefined) throw configError(state, `has no column ${column.name} (columns: ${known()})`);
      if (type !== 'VARCHAR') throw configError(state, `column ${column.name} is ${type}; full_text_search and embeddings need text (VARCHAR) columns`);
    }
    for (const id of state.dataset.rowId) if (!types.has(id)) throw configError(state, `row_id column ${id} does not exist (columns: ${known()})`);
  }

  /** Embeds the column's texts that have no vectors yet, in batches, and drops vectors of texts gone. */
  async #embedColumn(state: IndexState, column: SearchColumn): Promise<{ texts: number; chunks: number }> {
    const { signal } = this.#options;
    const engine = this.#options.engine();
    const embedder = this.#options.embedders.get(column.embedding!.model)!;
    const dimensions = embedder.dimensions()!;
    const table = vectorTable(state.dataset, column);
    if (!state.vectors.has(column.ordinal)) {
      engine.sandbox.hideTables([table.name]);
      await engine.runInternal(vectorTableStatement(table, dimensions));
    }
    const schema = vectorSchema(dimensions);
    const ready: EmbeddedChunk[] = [];
    const pending: Array<{ textHash: bigint; chunk: number; text: string }> = [];
    let texts = 0;
    let chunks = 0;
    const append = async (all: boolean) => {
      while (ready.length >= APPEND_CHUNKS || (all && ready.length > 0)) {
        const batch = vectorBatch(schema, ready.splice(0, APPEND_CHUNKS), dimensions);
        await engine.appendToTable({ schema: SEARCH_SCHEMA, name: table.name }, schema, single(batch), signal, { exactColumns: true });
      }
    };
    const embed = async (all: boolean) => {
      while (pending.length >= embedder.batchSize || (all && pending.length > 0)) {
        const batch = pending.splice(0, embedder.batchSize);
        const vectors = await embedder.embed(batch.map((item) => item.text), signal);
        batch.forEach((item, index) => ready.push({ ...item, vector: vectors[index]! }));
        chunks += batch.length;
        await append(false);
      }
    };
    const { batches } = await engine.queryOver(newTextsSql(state.dataset, column, table), [], signal);
    for await (const batch of batches) {
      const hashes = batch.getChildAt(0)!;
      const values = batch.getChildAt(1)!;
      for (let row = 0; row < batch.numRows; row += 1) {
        const text = values.get(row) as string;
        texts += 1;
        chunkText(text, column.embedding!.chunking).forEach((piece, chunk) => {
          if (piece.length > 0) pending.push({ textHash: hashes.get(row) as bigint, chunk, text: piece });
        });
      }
      await embed(false);
    }
    await embed(true);
    await append(true);
    await engine.runInternal(pruneVectorsSql(state.dataset, column, table));
    state.vectors.set(column.ordinal, { column, table, model: embedder.name, dimensions });
    return { texts, chunks };
  }

  #sources(): MacroSources {
    const text = new Map<string, { sql: string } | { notReady: string }>();
    const vector = new Map<string, { sql: string } | { notReady: string }>();
    for (const [key, state] of this.#states) {
      if (state.dataset.columns.some((column) => column.fullText)) text.set(key, state.fullText ? { sql: fullTextHitsSql(state.dataset, state.fullText) } : { notReady: this.#notReady(state) });
      if (state.dataset.columns.some((column) => column.embedding)) {
        vector.set(key, state.vectors.size > 0 ? { sql: vectorHitsSql(state.dataset, [...state.vectors.values()]) } : { notReady: this.#notReady(state) });
      }
    }
    return { text, vector };
  }

  #notReady(state: IndexState): string {
    return state.error ? `its search index failed to build: ${state.error}` : 'its search index is being built; retry once the dataset is ready';
  }
}

function configError(state: IndexState, message: string): QuarryError {
  return new QuarryError('SEARCH_CONFIG_INVALID', `dataset ${state.dataset.name} ${message}`, { details: { dataset: state.dataset.name } });
}

async function* single(batch: RecordBatch): AsyncIterable<RecordBatch> {
  yield batch;
}
