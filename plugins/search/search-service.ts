import { QuarryError, toQuarryError } from '../../core/errors/quarry-error.js';
import { quoteIdentifier, quoteLiteral } from '../../core/engine/sql-text.js';
import { encodeJson } from '../../core/http/encoders/index.js';
import type { PluginRuntime } from '../../core/plugins/types.js';
import type { Principal, Protocol } from '../../core/pipeline/types.js';
import type { CacheDirectives } from '../../core/http/cache-control.js';
import type { SharedCache } from '../../core/cache/shared-caches.js';
import type { TaskInput } from '../../core/tasks/task-history.js';
import { reciprocalRankFusion, type RankedMatch } from './fusion.js';
import type { SearchIndexes } from './search-indexes.js';
import type { SearchRequest } from './search-request.js';

/**
 * One match as Spice's v2 API answers it. The score is sent twice: `_score` is the name
 * Spice's runtime writes (what its SDKs read), `score` the name of its API reference.
 */
export interface SearchMatch {
  /** Matched column -> its matched texts (always lists, as in Spice v2). */
  readonly matches: Record<string, string[]>;
  readonly dataset: string;
  readonly primary_key: Record<string, unknown>;
  readonly data: Record<string, unknown>;
  readonly score: number;
  readonly _score: number;
}

export type SearchCacheStatus = 'HIT' | 'MISS' | 'BYPASS';

export interface SearchAnswer {
  readonly results: readonly SearchMatch[];
  readonly cacheStatus: SearchCacheStatus | undefined;
  readonly cacheScope: 'shared' | 'user';
}

interface Caller {
  readonly principal: Principal;
  readonly protocol: Protocol;
  readonly signal: AbortSignal;
  readonly directives: CacheDirectives | undefined;
}

type Row = Record<string, unknown>;

/** Hybrid search fuses this many candidates of each method per result asked for. */
const CANDIDATES_PER_RESULT = 3;

/**
 * Answers search requests: per dataset, full-text and vector matches from the engine (the
 * macros of index-sql.ts, run through the query pipeline as the caller, read-only, so their
 * `where` is the caller's own SQL under the caller's own rules), fused by reciprocal rank when
 * both exist. Answers are kept in the `search_results` cache, dropped when a dataset changes.
 */
export class SearchService {
  readonly #runtime: PluginRuntime;
  readonly #indexes: SearchIndexes;
  readonly #cache: () => SharedCache | undefined;
  readonly #record: (task: TaskInput) => void;

  constructor(options: { runtime: PluginRuntime; indexes: SearchIndexes; cache: () => SharedCache | undefined; record: (task: TaskInput) => void }) {
    this.#runtime = options.runtime;
    this.#indexes = options.indexes;
    this.#cache = options.cache;
    this.#record = options.record;
  }

  async search(request: SearchRequest, caller: Caller): Promise<SearchAnswer> {
    const startTime = new Date();
    const datasets = this.#datasetsOf(request);
    const cache = this.#cache();
    const cacheScope = caller.principal.id === 'anonymous' ? 'shared' : 'user';
    const material = JSON.stringify([caller.principal.id, datasets, request.text, request.limit, request.where ?? null, request.additional_columns, request.keywords ?? []]);
    const labels = { datasets: datasets.join(','), limit: String(request.limit), protocol: caller.protocol };
    try {
      if (cache && !caller.directives?.noCache) {
        const cached = cache.get(material);
        if (cached !== undefined) {
          const results = cached as SearchMatch[];
          this.#recordSearch(request, results, startTime, { ...labels, search_results_cache_hit: 'true' });
          return { results, cacheStatus: 'HIT', cacheScope };
        }
      }
      if (caller.directives?.onlyIfCached) throw new QuarryError('CACHE_ONLY_IF_CACHED_MISS', 'the search answer is not cached and Cache-Control: only-if-cached forbids running it');
      const generations = cache?.generationsOf(datasets.map((name) => name.toLowerCase()));
      const perDataset = await Promise.all(datasets.map((dataset) => this.#searchDataset(dataset, request, caller)));
      const results = mergeDatasets(perDataset, request.limit);
      if (cache && !caller.directives?.noStore) {
        const bytes = Buffer.byteLength(JSON.stringify(results)) + material.length * 2;
        cache.set(material, results, { bytes, datasets: datasets.map((name) => name.toLowerCase()), generations });
      }
      this.#recordSearch(request, results, startTime, labels);
      return { results, cacheStatus: cache ? (caller.directives?.noCache ? 'BYPASS' : 'MISS') : undefined, cacheScope };
    } catch (error) {
      this.#record({ task: 'search', input: request.text, startTime, endTime: new Date(), errorMessage: toQuarryError(error).message, labels });
      throw error;
    }
  }

  /** The datasets to search: those asked for (each must be searchable), or every searchable one. */
  #datasetsOf(request: SearchRequest): string[] {
    const searchable = this.#indexes.datasets().map((dataset) => dataset.name);
    if (searchable.length === 0) throw new QuarryError('SEARCH_INVALID_REQUEST', 'no dataset is searchable: declare full_text_search or embeddings on a column of an accelerated dataset (docs/search.md)');
    if (!request.datasets) return searchable;
    return [...new Set(request.datasets.map((name) => {
      const dataset = this.#indexes.dataset(name);
      if (!dataset) throw new QuarryError('SEARCH_INVALID_REQUEST', `dataset ${name} is not searchable; searchable datasets: ${searchable.join(', ')}`);
      return dataset.name;
    }))];
  }

  async #searchDataset(name: string, request: SearchRequest, caller: Caller): Promise<SearchMatch[]> {
    const dataset = this.#indexes.dataset(name)!;
    const methods = this.#indexes.methods(name);
    if (!methods.text && !methods.vector) throw new QuarryError('SEARCH_INDEX_NOT_READY', `dataset ${name}: ${methods.notReady}`, { details: { dataset: name } });
    const columns = this.#resolveColumns(name, [...dataset.rowId, ...request.additional_columns]);
    const hybrid = methods.text && methods.vector;
    const candidates = hybrid ? request.limit * CANDIDATES_PER_RESULT : request.limit;
    const lists = await Promise.all(
      (['text', 'vector'] as const)
        .filter((method) => methods[method])
        .map(async (method) => (await this.#rows(method, name, columns, request, candidates, caller)).map((row) => ({ row: String(row['__quarry_row']), item: row }))),
    );
    const toMatch = (rows: Row[], score: number): SearchMatch => {
      const matches: Record<string, string[]> = {};
      for (const row of rows) {
        const list = (matches[String(row['__quarry_column'])] ??= []);
        const text = String(row['__quarry_text']);
        if (!list.includes(text)) list.push(text);
      }
      const first = rows[0]!;
      return {
        matches,
        dataset: name,
        primary_key: Object.fromEntries(dataset.rowId.map((column) => [column, first[columns.get(column.toLowerCase())!]])),
        data: Object.fromEntries(request.additional_columns.map((column) => [column, first[columns.get(column.toLowerCase())!]])),
        score,
        _score: score,
      };
    };
    if (!hybrid) return lists[0]!.map((match) => toMatch([match.item], Number(match.item['__quarry_score'])));
    return reciprocalRankFusion<Row[]>(lists.map((list): Array<RankedMatch<Row[]>> => list.map((match) => ({ row: match.row, item: [match.item] }))), (items) => items.flat())
      .slice(0, request.limit)
      .map((fused) => toMatch(fused.item, fused.score));
  }

  /** Requested column names (any case) -> the dataset's own spelling; an unknown one is the caller's error. */
  #resolveColumns(dataset: string, requested: readonly string[]): Map<string, string> {
    const known = this.#indexes.columnNames(dataset);
    const byLower = new Map(known.map((column) => [column.toLowerCase(), column]));
    const resolved = new Map<string, string>();
    for (const column of requested) {
      const actual = byLower.get(column.toLowerCase());
      if (!actual) throw new QuarryError('SEARCH_INVALID_REQUEST', `dataset ${dataset} has no column ${column}; its columns: ${known.join(', ')}`);
      resolved.set(column.toLowerCase(), actual);
    }
    return resolved;
  }

  /** One method's best rows, through the pipeline as the caller (read-only): policy, metrics, task history. */
  async #rows(method: 'text' | 'vector', dataset: string, columns: Map<string, string>, request: SearchRequest, limit: number, caller: Caller): Promise<Row[]> {
    const selected = [...new Set(columns.values())].map(quoteIdentifier);
    // The predicate ends on its own line: a trailing `--` comment cannot swallow the parenthesis.
    const where = request.where === undefined ? '' : ` WHERE (${request.where}\n)`;
    // Ties go by row position, so equal scores always answer in the same order.
    // The text is a parameter: the statement is the same for every text (kept prepared), and the
    // sql_query task-history row of this inner query does not hold it (captured_context governs it).
    const sql = `SELECT ${[...selected, '__quarry_row', '__quarry_score', '__quarry_column', '__quarry_text'].join(', ')} FROM quarry_search_${method}(${quoteLiteral(dataset)}, $1)${where} ORDER BY __quarry_score DESC, __quarry_row LIMIT ${limit}`;
    const principal: Principal = { ...caller.principal, canWrite: false, readOnlyBecause: 'search only reads' };
    let text: string;
    try {
      const query = method === 'text' && request.keywords ? [request.text, ...request.keywords].join(' ') : request.text;
      const { result } = await this.#runtime.query({ sql, parameters: [query], protocol: caller.protocol, principal, signal: caller.signal });
      const chunks: Buffer[] = [];
      for await (const chunk of encodeJson({ schema: result.schema, batches: result.batches })) chunks.push(chunk);
      text = Buffer.concat(chunks).toString('utf8');
    } catch (error) {
      const failure = toQuarryError(error);
      if (request.where !== undefined && failure.code !== 'EMBEDDING_MODEL_FAILED' && failure.code !== 'SEARCH_INDEX_NOT_READY') {
        throw new QuarryError('SEARCH_INVALID_REQUEST', `searching ${dataset} with where ${JSON.stringify(request.where)} failed: ${failure.message.split('\n')[0]}`, { cause: error });
      }
      throw failure;
    }
    const rows = JSON.parse(text) as Row[];
    if (rows.length > 0 && !('__quarry_row' in rows[0]!)) throw new QuarryError('SEARCH_INVALID_REQUEST', `where ${JSON.stringify(request.where)} is not a predicate over ${dataset}'s columns`);
    return rows;
  }

  #recordSearch(request: SearchRequest, results: readonly SearchMatch[], startTime: Date, labels: Record<string, string>): void {
    this.#record({
      task: 'search',
      input: request.text,
      capturedOutput: JSON.stringify(results),
      startTime,
      endTime: new Date(),
      labels: { ...labels, outputs_produced: String(results.length) },
    });
  }
}

/**
 * One list from each dataset's ranked matches. A single dataset's order is its own. Several
 * are merged by reciprocal rank (a dataset's n-th match before any dataset's n+1-th, ties by
 * score): BM25, cosine and fused scores have different scales, so comparing them across
 * datasets would let one method always win. Each match keeps its own score.
 */
function mergeDatasets(perDataset: readonly SearchMatch[][], limit: number): SearchMatch[] {
  if (perDataset.length === 1) return perDataset[0]!.slice(0, limit);
  return perDataset
    .flatMap((matches) => matches.map((match, rank) => ({ match, rank })))
    .sort((a, b) => a.rank - b.rank || b.match.score - a.match.score)
    .slice(0, limit)
    .map(({ match }) => match);
}
