import type { RecordBatch, Schema } from 'apache-arrow';
import { LRUCache } from 'lru-cache';
import type { EngineApi } from '../../../core/engine/engine-api.js';
import { QuarryError } from '../../../core/errors/quarry-error.js';
import type { FlightStream } from '../../../core/flight/client/flight-client.js';
import type { Logger } from '../../../core/log.js';
import type { Counter } from '../../../core/metrics/registry.js';
import type { QueryRequest, QueryResult } from '../../../core/pipeline/types.js';
import { quoteIdentifier, quoteLiteral } from '../../../core/engine/sql-text.js';
import { batchesInMemory } from '../../../core/engine/arrow/batches-in-memory.js';
import '../errors.js';
import { mergePartials, type AggregateMergePlan } from './arrow-merge.js';
import { arrowMergePlan, topKMergePlan, type OrderSettings } from './arrow-merge-plan.js';
import { mergeTopK, type TopKMergePlan } from './arrow-top-k.js';
import type { ClusterLeg, ClusterSource } from './cluster-source.js';
import { queryShape, type QueryShape } from './query-shape.js';
import {
  aggregateLegStatement,
  aggregateMergeStatements,
  averageArgumentsStatement,
  averageFinish,
  legSql,
  PARTIALS_TABLE,
  topKLegStatement,
  topKMergeStatement,
  wholeLegStatement,
  type AverageFinish,
} from './pushdown-statements.js';
import { parsedSelect, statementDocument, type SelectNode } from './syntax-tree.js';

/** How a pushed-down query ran: whole on one executor, or split over several and merged. */
export type PushdownMode = 'whole' | 'union' | 'top-k' | 'aggregate';

/** A recognised query: its shape and the leg SQL (partition predicate as a marker) for a single executor. */
interface Plan {
  readonly shape: QueryShape;
  readonly whole: string;
  split?: Promise<Split | undefined>;
}

/** The statements of a query split over several executors. */
interface Split {
  readonly mode: Exclude<PushdownMode, 'whole'>;
  readonly leg: string;
  /** The scheduler's query over the legs' answers (table `quarry_partials`); none for a union. */
  readonly merge: string | undefined;
  /** The same merge in JS (arrow-merge.ts, arrow-top-k.ts), for plain aggregates and top-k: no engine call. */
  readonly arrow?: AggregateMergePlan | TopKMergePlan;
}

/** Partial rows beyond this go to the engine's merge (its hash aggregate beats a JS Map on many groups). */
const ARROW_MERGE_MAX_ROWS = 10_000;

/**
 * Types whose Arrow round trip (executor → scheduler temp table) keeps the DuckDB type, so
 * the merge computes over the same types the executors did. HUGEINT travels as DECIMAL(38,0):
 * fine under an aggregate merge (its outputs are cast back), not in a top-k's expressions.
 */
const EXACT_ROUND_TRIP = /^(BOOLEAN|TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|VARCHAR|DATE|TIMESTAMP|BLOB|DECIMAL\(\d+,\s*\d+\))$/;
const MERGEABLE = /^(HUGEINT|BOOLEAN|TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|VARCHAR|DATE|TIMESTAMP|BLOB|DECIMAL\(\d+,\s*\d+\))$/;

/**
 * Answers queries over one partitioned dataset by pushing them into the executors (a
 * `query.instead` tap, so auth, the results cache and task history see them as any query):
 *
 *  - one executor holds every wanted partition: it runs the whole query (with the partition
 *    predicate added) and its answer streams through;
 *  - several: row-wise queries are concatenated; ORDER BY ... LIMIT k takes each executor's
 *    first k rows and sorts those; GROUP BY with count / sum / min / max / avg takes each
 *    executor's partial aggregates and combines them (counts and sums add up, avg from sum and
 *    count exactly as DuckDB finishes it), cast to the single-node types and names.
 *
 * Anything else (joins, subqueries, count(DISTINCT), median, windows over several executors,
 * parameters, ...) returns undefined: the scheduler's engine runs it over the fetched rows.
 */
export class PushdownRouter {
  /** The engine exists once start-up began: asked for when a query comes. */
  readonly #engine: () => EngineApi;
  readonly #sources: ReadonlyMap<string, ClusterSource>;
  readonly #log: Logger;
  readonly #pushed: Counter;
  readonly #plans = new LRUCache<string, Plan | false>({ max: 4096 });
  #aggregateFunctions: Promise<Set<string>> | undefined;
  #orderSettings: Promise<OrderSettings> | undefined;

  constructor(options: { engine: () => EngineApi; sources: ReadonlyMap<string, ClusterSource>; log: Logger; pushed: Counter }) {
    this.#engine = options.engine;
    this.#sources = options.sources;
    this.#log = options.log;
    this.#pushed = options.pushed;
  }

  async answer(request: QueryRequest): Promise<QueryResult | undefined> {
    if (request.kind !== 'read' || request.parameters.length > 0 || request.datasets.length !== 1) return undefined;
    const source = this.#sources.get(request.datasets[0]!);
    // The pushdown names its own columns and tables quarry_*: a query using such names is left alone.
    if (!source || /quarry_/i.test(request.sql)) return undefined;
    const plan = await this.#plan(request.sql, source);
    if (!plan) return undefined;
    const { legs, of } = await source.legs(plan.shape.filters);
    // No partition can hold a wanted row: the engine answers over no rows (count 0, no groups).
    if (legs.length === 0) return undefined;
    const split = legs.length === 1 ? undefined : await (plan.split ??= this.#split(plan.shape));
    if (legs.length > 1 && !split) return undefined;
    const mode: PushdownMode = split?.mode ?? 'whole';
    this.#log.debug('cluster scan', { dataset: plan.shape.dataset, executors: legs.map((leg) => leg.owner).join(','), partitions: legs.reduce((sum, leg) => sum + leg.partitions.length, 0), of, pushdown: mode });
    const started = performance.now();
    const streams = await source.openLegs(legs.map((leg) => ({ leg, sql: (predicate: string) => legSql(split?.leg ?? plan.whole, predicate) })), request.signal);
    this.#pushed.add(1, { mode });
    // When the last leg was read and when the answer was: the executors' part and the scheduler's.
    const timing: Timing = { dataset: plan.shape.dataset, pushdown: mode, executors: legs.length, legsDone: 0, mergedBy: 'none' };
    const batches = this.#concatenated(plan.shape.dataset, legs, streams, mode, () => (timing.legsDone = performance.now()));
    if (split?.merge === undefined) {
      return { schema: commonSchema(plan.shape.dataset, legs, streams), batches: this.#timed(batches, started, timing), cacheStatus: 'BYPASS', headers: {} };
    }
    try {
      const schema = commonSchema(plan.shape.dataset, legs, streams);
      const merged = await this.#merged(split, schema, batches, request.signal);
      timing.mergedBy = merged.by;
      return { schema: merged.schema, batches: this.#timed(merged.batches, started, timing), cacheStatus: 'BYPASS', headers: {} };
    } catch (error) {
      for (const stream of streams) stream.cancel();
      throw error;
    }
  }

  /**
   * The legs' partials merged: in JS when the split has an Arrow plan and the partials are few
   * (read here, before answering), else by the engine, over the same batches either way.
   */
  async #merged(split: Split, schema: Schema, batches: AsyncIterable<RecordBatch>, signal: AbortSignal): Promise<{ schema: Schema; batches: AsyncIterable<RecordBatch>; by: Timing['mergedBy'] }> {
    const iterator = batches[Symbol.asyncIterator]();
    const read: RecordBatch[] = [];
    if (split.arrow) {
      let rows = 0;
      for (let next = await iterator.next(); ; next = await iterator.next()) {
        if (next.done) {
          const answer = split.arrow.kind === 'top-k' ? mergeTopK(split.arrow, schema, read) : mergePartials(split.arrow, schema, read);
          if (answer) return { schema: answer.schema, batches: batchesInMemory([answer]), by: 'arrow' };
          this.#log.debug('cluster merge by the engine', { reason: 'a sum beyond 38 digits, or an Arrow layout the JS merge does not read' });
          break;
        }
        read.push(next.value);
        rows += next.value.numRows;
        if (rows > ARROW_MERGE_MAX_ROWS) break;
      }
    }
    const rest: AsyncIterable<RecordBatch> = {
      async *[Symbol.asyncIterator]() {
        yield* read;
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
      },
    };
    const merged = await this.#engine().queryOver(split.merge!, [{ name: PARTIALS_TABLE, schema, batches: rest }], signal);
    return { ...merged, by: 'engine' };
  }

  /** Logs, once the answer was read, how long the executors' legs and the scheduler's merge took. */
  #timed(batches: AsyncIterable<RecordBatch>, started: number, timing: Timing): AsyncIterable<RecordBatch> {
    const log = this.#log;
    return {
      async *[Symbol.asyncIterator]() {
        let rows = 0;
        for await (const batch of batches) {
          rows += batch.numRows;
          yield batch;
        }
        const finished = performance.now();
        const legsDone = timing.legsDone || finished;
        log.debug('cluster pushdown done', { dataset: timing.dataset, pushdown: timing.pushdown, executors: timing.executors, rows, legs_ms: (legsDone - started).toFixed(2), merge_ms: (finished - legsDone).toFixed(2), merged_by: timing.mergedBy });
      },
    };
  }

  /** The legs' batches one leg after the other; every stream is cancelled once done, failed or abandoned. */
  #concatenated(dataset: string, legs: readonly ClusterLeg[], streams: readonly FlightStream[], mode: PushdownMode, onEnd: () => void): AsyncIterable<RecordBatch> {
    const log = this.#log;
    return {
      async *[Symbol.asyncIterator]() {
        let index = 0;
        try {
          for (; index < streams.length; index++) {
            let rows = 0;
            try {
              for await (const batch of streams[index]!.batches) {
                rows += batch.numRows;
                yield batch;
              }
            } catch (error) {
              throw new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `dataset "${dataset}": executor ${legs[index]!.owner} failed its share of the scan: ${(error as Error).message}`, { cause: error });
            } finally {
              log.debug('cluster leg', { dataset, executor: legs[index]!.owner, rows, pushdown: mode });
            }
          }
          onEnd();
        } finally {
          for (const stream of streams) stream.cancel();
        }
      },
    };
  }

  /** The plan of a statement (memoised by its text), or false when it is not pushed down. */
  async #plan(sql: string, source: ClusterSource): Promise<Plan | false> {
    const known = this.#plans.get(sql);
    if (known !== undefined) return known;
    // Before the dataset's columns are known nothing is decided (nor remembered).
    if (source.columns.length === 0) return false;
    try {
      const plan = await this.#recognise(sql, source);
      this.#plans.set(sql, plan);
      return plan;
    } catch (error) {
      // Not remembered either: the next run of the statement tries again.
      this.#log.debug('cluster pushdown skipped', { reason: (error as Error).message });
      return false;
    }
  }

  async #recognise(sql: string, source: ClusterSource): Promise<Plan | false> {
    const columns = source.columns;
    if (columns.some((column) => column.name.toLowerCase().startsWith('quarry_'))) return false;
    const [row] = await this.#internal(`SELECT json_serialize_sql(${quoteLiteral(sql)}) AS tree`);
    const statement = parsedSelect(String(row?.['tree'] ?? ''));
    if (!statement) return false;
    const name = source.datasetName;
    const shape = queryShape(statement, {
      datasets: new Map([[name.toLowerCase(), { name, columns: new Map(columns.map((column) => [column.name.toLowerCase(), column])) }]]),
      aggregateFunctions: await (this.#aggregateFunctions ??= this.#aggregateNames().catch((error: unknown) => {
        this.#aggregateFunctions = undefined; // asked again next time
        throw error;
      })),
    });
    if (!shape) return false;
    const [whole] = await this.#render([wholeLegStatement(shape)]);
    return { shape, whole: whole! };
  }

  /** Prepares the statements of a split (once per statement text); undefined when it cannot be split after all. */
  async #split(shape: QueryShape): Promise<Split | undefined> {
    try {
      const plan = shape.split;
      if (!plan) return undefined;
      if (plan.kind === 'union') return { mode: 'union', leg: (await this.#render([wholeLegStatement(shape)]))[0]!, merge: undefined };
      if (plan.kind === 'top-k') {
        const [leg, merge, original] = await this.#render([topKLegStatement(shape, plan), topKMergeStatement(shape), shape.statement.node]);
        const legTypes = await this.#legTypes(leg!);
        if (!legTypes.every((column) => EXACT_ROUND_TRIP.test(column.type))) return undefined;
        const arrow = topKMergePlan({ node: shape.statement.node, plan, legTypes, described: await this.#describe(original!), settings: await this.#settings() });
        return { mode: 'top-k', leg: leg!, merge: merge!, ...this.#inJs(arrow) };
      }
      const averageArguments = averageArgumentsStatement(shape, plan);
      const finishes: AverageFinish[] = [];
      if (averageArguments) {
        const [text] = await this.#render([averageArguments]);
        for (const column of await this.#describe(text!)) {
          const finish = averageFinish(column.type);
          if (!finish) return undefined;
          finishes.push(finish);
        }
      }
      const { outputs, rest } = aggregateMergeStatements(shape, plan, finishes);
      const [leg, original, restText, ...outputTexts] = await this.#render([aggregateLegStatement(shape, plan), shape.statement.node, rest, ...outputs]);
      const legTypes = await this.#legTypes(leg!);
      if (!legTypes.every((column) => MERGEABLE.test(column.type))) return undefined;
      // The single node's answer: its column names and types, which the merge reproduces.
      const described = await this.#describe(original!);
      if (described.length !== outputTexts.length || !restText!.startsWith('SELECT 1 ') || outputTexts.some((text) => !text!.startsWith('SELECT '))) return undefined;
      const items = outputTexts.map((text, index) => `CAST(${text!.slice('SELECT '.length)} AS ${described[index]!.type}) AS ${quoteIdentifier(described[index]!.name)}`);
      const arrow = arrowMergePlan({ node: shape.statement.node, plan, legTypes, described, settings: await this.#settings() });
      return { mode: 'aggregate', leg: leg!, merge: `SELECT ${items.join(', ')}${restText!.slice('SELECT 1'.length)}`, ...this.#inJs(arrow) };
    } catch (error) {
      this.#log.debug('cluster pushdown not split', { reason: (error as Error).message });
      return undefined;
    }
  }

  /** A split's JS merge, or (logged) why the engine merges it. */
  #inJs(arrow: AggregateMergePlan | TopKMergePlan | { declined: string }): { arrow?: AggregateMergePlan | TopKMergePlan } {
    if (!('declined' in arrow)) return { arrow };
    this.#log.debug('cluster merge by the engine', { reason: arrow.declined });
    return {};
  }

  /** Column types of a leg's answer (its partition predicate left out). */
  #legTypes(leg: string): Promise<Array<{ name: string; type: string }>> {
    return this.#describe(legSql(leg, 'TRUE'));
  }

  async #describe(sql: string): Promise<Array<{ name: string; type: string }>> {
    const rows = await this.#internal(`DESCRIBE ${sql}`);
    return rows.map((row) => ({ name: String(row['column_name']), type: String(row['column_type']) }));
  }

  /** Renders syntax trees back to SQL, in one engine call. */
  async #render(nodes: readonly SelectNode[]): Promise<string[]> {
    const columns = nodes.map((node, index) => `json_deserialize_sql(${quoteLiteral(statementDocument(node))}) AS s${index}`);
    const [row] = await this.#internal(`SELECT ${columns.join(', ')}`);
    return nodes.map((_, index) => String(row![`s${index}`]));
  }

  /** The engine's ORDER BY defaults and collation, read once (read-only callers cannot SET them). */
  #settings(): Promise<OrderSettings> {
    return (this.#orderSettings ??= this.#internal("SELECT current_setting('default_order') AS o, current_setting('default_null_order') AS n, current_setting('default_collation') AS c").then(
      // default_order reads back as set: ASC / ASCENDING / DESC / DESCENDING.
      ([row]) => ({ order: String(row?.['o']).toUpperCase().replace(/^(ASC|DESC)$/, '$1ENDING'), nullOrder: String(row?.['n']).toUpperCase(), collation: String(row?.['c'] ?? '') }),
      (error: unknown) => {
        this.#orderSettings = undefined; // asked again next time
        throw error;
      },
    ));
  }

  async #aggregateNames(): Promise<Set<string>> {
    const rows = await this.#internal("SELECT DISTINCT lower(function_name) AS name FROM duckdb_functions() WHERE function_type = 'aggregate'");
    return new Set(rows.map((row) => String(row['name'])));
  }

  /** The engine's own statements about statement text: live datasets stay empty (nothing is fetched). */
  #internal(sql: string): Promise<Array<Record<string, unknown>>> {
    return this.#engine().runInternal(sql, [], { readLive: false });
  }
}

/** When the executors' legs were read and which merge ran: logged once the answer was read. */
interface Timing {
  readonly dataset: string;
  readonly pushdown: PushdownMode;
  readonly executors: number;
  legsDone: number;
  mergedBy: 'none' | 'arrow' | 'engine';
}

/** The legs' common schema; executors answering one statement with different columns is an error, never a mixed result. */
function commonSchema(dataset: string, legs: readonly ClusterLeg[], streams: readonly FlightStream[]): Schema {
  const first = streams[0]!.schema;
  // Executors answering alike send the same schema bytes, which the Flight reader decodes to one object.
  if (streams.every((stream) => stream.schema === first)) return first;
  const shape = (schema: Schema) => schema.fields.map((field) => `${field.name}:${String(field.type)}`).join(',');
  const expected = shape(first);
  const differing = streams.findIndex((stream) => shape(stream.schema) !== expected);
  if (differing >= 0) {
    for (const stream of streams) stream.cancel();
    throw new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `dataset "${dataset}": executors ${legs[0]!.owner} and ${legs[differing]!.owner} answered with different columns (${expected} / ${shape(streams[differing]!.schema)}); are they running the same release?`);
  }
  return first;
}
