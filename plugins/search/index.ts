import { AsyncScalarFunction } from '../../core/engine/native/async-scalar.js';
import { STAGE } from '../../core/hooks/stages.js';
import type { ManifestSectionSlice } from '../../core/manifest/slice.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { sharedCaches } from '../../core/cache/shared-caches.js';
import { taskHistory, type TaskInput } from '../../core/tasks/task-history.js';
import './errors.js';
import { createEmbedder } from './models/create-embedder.js';
import type { Embedder } from './models/embedder.js';
import { QueryEmbeddings } from './query-embeddings.js';
import { registerSearchRoutes } from './routes.js';
import { embeddingModelsSchema, unservedReason, type EmbeddingModelConfig } from './schema.js';
import { searchDatasets } from './search-datasets.js';
import { SearchIndexes } from './search-indexes.js';
import { SearchService } from './search-service.js';
import { searchTool } from './search-tool.js';

export const SEARCH_PLUGIN_NAME = 'search';

const slices: ManifestSectionSlice[] = [{ path: 'embeddings', schema: embeddingModelsSchema, secretFields: ['*.params.**'] }];

export interface SearchPlugin extends QuarryPlugin {
  /** Resolves once every searchable dataset's indexes were built once (tests, benchmarks). */
  whenIndexed(): Promise<void>;
}

/**
 * Full-text and vector search over dataset columns (docs/search.md): indexes built in the
 * engine at load and after every refresh and write, `text_search` / `vector_search` in SQL,
 * `POST /v1/search`, the MCP `search` tool, OpenAI-compatible and local ONNX embedding models,
 * with the `search_results` and `embeddings` caches of runtime.caching.
 */
export function createSearchPlugin(): SearchPlugin {
  /** Datasets whose first index build ended (built or failed), and who waits for all of them. */
  const attempted = new Set<string>();
  let waitingFor: readonly string[] | undefined;
  const waiting: Array<() => void> = [];
  const settleWaiting = () => {
    if (waitingFor && waitingFor.every((name) => attempted.has(name))) for (const resolve of waiting.splice(0)) resolve();
  };
  return {
    name: SEARCH_PLUGIN_NAME,
    manifest: slices,
    whenIndexed: () => new Promise<void>((resolve) => {
      waiting.push(resolve);
      settleWaiting();
    }),
    apply(runtime) {
      const declared = runtime.section<EmbeddingModelConfig[]>('embeddings') ?? [];
      const unserved = new Map(declared.flatMap((model) => {
        const reason = unservedReason(model);
        return reason === undefined ? [] : [[model.name, reason] as const];
      }));
      const models = declared.filter((model) => !unserved.has(model.name));
      // Read in the hooks (check or start-up), where a refusal keeps its own code (SEARCH_CONFIG_INVALID).
      const searchable = () => {
        for (const [name, reason] of unserved) runtime.log.warn(`embeddings model ${name} is not loaded: ${reason}`);
        const { datasets, warnings } = searchDatasets(runtime.manifest.datasets, new Set(models.map((model) => model.name)), unserved);
        for (const warning of warnings) runtime.log.warn(warning);
        return datasets;
      };
      const embedders = new Map<string, Embedder>();
      const stop = new AbortController();
      const record = (task: TaskInput) => {
        taskHistory(runtime.hooks)?.record(task);
      };
      const queryEmbeddings = new QueryEmbeddings({ embedders, cache: () => sharedCaches(runtime.hooks)?.embeddings(), record });
      const indexes = new SearchIndexes({
        engine: () => runtime.engine,
        log: runtime.log,
        embedders,
        signal: stop.signal,
        // Answers computed from the old index (SQL results naming the dataset, search results) go.
        changed: (dataset) => runtime.hooks.cache.invalidate.promise({ datasets: [dataset.toLowerCase()], reason: 'refresh' }),
      });
      const service = new SearchService({ runtime, indexes, cache: () => sharedCaches(runtime.hooks)?.searchResults(), record });
      registerSearchRoutes(runtime, { service, indexes, embedders, queryEmbeddings });

      const rebuild = (dataset: string) =>
        indexes
          .rebuild(dataset)
          .catch(() => undefined) // logged, and reported by /v1/search/indexes and search errors
          .then(() => {
            attempted.add(dataset.toLowerCase());
            settleWaiting();
          });

      // quarryd --check: what start-up would refuse in the search settings, and the models not run.
      runtime.hooks.check.tapPromise(SEARCH_PLUGIN_NAME, async (check) => {
        try {
          searchable();
        } catch (error) {
          check.report('datasets', (error as Error).message);
        }
      });

      runtime.hooks.startup.tapPromise(SEARCH_PLUGIN_NAME, async () => {
        const datasets = searchable();
        indexes.configure(datasets);
        waitingFor = datasets.map((dataset) => dataset.name.toLowerCase());
        settleWaiting();
        for (const model of models) {
          const embedder = createEmbedder(model, { directory: runtime.source.directory, outbound: runtime.outbound });
          await embedder.open(stop.signal);
          embedders.set(model.name, embedder);
          runtime.log.info(`embeddings model ${model.name} ready`, { from: model.from, dimensions: embedder.dimensions() });
        }
        const embed = new AsyncScalarFunction({
          name: 'quarry_embed',
          parameterTypes: ['VARCHAR', 'VARCHAR'],
          returnType: 'VARCHAR',
          // A chunk holds one text repeated (a constant argument) or many: each distinct text is embedded once, in the model's batches.
          async evaluate(columns, rowCount) {
            const byModel = new Map<string, number[]>();
            for (let row = 0; row < rowCount; row += 1) {
              const model = columns[0]![row];
              if (typeof model !== 'string' || typeof columns[1]![row] !== 'string') continue;
              let rows = byModel.get(model);
              if (!rows) byModel.set(model, (rows = []));
              rows.push(row);
            }
            const values = new Array<string | null>(rowCount).fill(null);
            for (const [model, rows] of byModel) {
              const vectors = await queryEmbeddings.embedMany(model, rows.map((row) => columns[1]![row] as string), stop.signal);
              const texts = new Map<Float32Array, string>();
              rows.forEach((row, index) => {
                const vector = vectors[index]!;
                let text = texts.get(vector);
                if (text === undefined) texts.set(vector, (text = JSON.stringify(Array.from(vector))));
                values[row] = text;
              });
            }
            return values;
          },
        });
        runtime.engine.addConnectionInitializer(async (connection) => embed.registerOn(connection));
        await indexes.installMacros();
        // A tool that could only fail is not offered: it is listed once a dataset is searchable.
        if (datasets.length > 0) runtime.tools.register(searchTool(service));
        if (datasets.length > 0) runtime.log.info(`search over ${datasets.length} datasets`, { datasets: datasets.map((dataset) => dataset.name) });
      });

      // Built after the load or refresh the engine just finished (never awaited: queries need not wait).
      runtime.hooks.datasets.loaded.tap({ name: SEARCH_PLUGIN_NAME, stage: STAGE.OBSERVE_LAST }, (event) => {
        if (event.error === undefined && indexes.dataset(event.dataset)) void rebuild(event.dataset);
      });
      runtime.hooks.cache.invalidate.tap({ name: SEARCH_PLUGIN_NAME, stage: STAGE.OBSERVE_LAST }, (invalidation) => {
        if (invalidation.reason !== 'write') return;
        for (const dataset of invalidation.datasets) if (indexes.dataset(dataset)) void rebuild(dataset);
      });

      runtime.hooks.shutdown.stop.tapPromise({ name: SEARCH_PLUGIN_NAME, stage: STAGE.STOP_PLUGINS }, async () => {
        stop.abort();
        await Promise.allSettled([...embedders.values()].map((embedder) => embedder.close()));
      });
    },
  };
}
