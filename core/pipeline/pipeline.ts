import { randomUUID } from 'node:crypto';
import type { RecordBatch } from 'apache-arrow';
import { QuarryError, toQuarryError } from '../errors/quarry-error.js';
import type { Hooks } from '../hooks/hooks.js';
import { STAGE } from '../hooks/stages.js';
import type { Logger } from '../log.js';
import type { Engine } from '../engine/engine.js';
import type { PhaseMachine } from '../lifecycle/phase.js';
import { createStatementPolicy, insertTarget } from './statement-policy.js';
import { LRUCache } from 'lru-cache';
import { LazyAbort } from './lazy-abort.js';
import { QUERY_STAGES, StageClock } from './query-stages.js';
import { DEFAULT_MAX_SQL_LENGTH } from '../manifest/sections/runtime-core.js';
import { complexityRefusal, neverStatement, neverStatementError, writeStatement } from '../engine/statement-gate.js';
import type { PreparedQuery } from '../engine/prepared-query.js';
import type { EncodedAnswer, InboundRequest, Principal, Protocol, QueryOutcome, QueryRequest, QueryResult, ResultMemo } from './types.js';

/**
 * Whether anything tapped a hook. Not tapable's `isUsed()`: that counts interceptors too, and
 * the core's guard intercepts every hook, so it is always true.
 */
function tapped(hook: { readonly taps: readonly unknown[] }): boolean {
  return hook.taps.length > 0;
}

/** What a path reports of a finished query; `#afterThen` adds the duration and end time. */
type Outcome = Omit<QueryOutcome, 'durationMs' | 'endTime'>;

interface Classification {
  readonly kind: QueryRequest['kind'];
  readonly statementType: string;
  readonly datasets: readonly string[];
  /** Why the statement may never run (it calls a refused function), whoever asks. */
  readonly refusal: QuarryError | undefined;
}

export interface ExecuteOptions {
  sql: string;
  parameters?: readonly unknown[];
  protocol: Protocol;
  principal: Principal;
  inbound?: InboundRequest;
  /** Aborts the query; a LazyAbort makes its AbortSignal only if something needs it. */
  signal?: AbortSignal | LazyAbort;
}

/**
 * The one query path behind every door:
 *   classify -> query.before -> cache.lookup -> (query.instead | engine) -> cache.store -> (stream) -> query.after
 * The result's batches must be read to the end or `return()`ed; `query.after` fires then.
 */
/** Only a query has a logical plan (json_serialize_plan refuses other statements): no plan is started for writes. */
const MAY_HAVE_PLAN = /^[\s(]*(?:select|with|from|values|table|pivot|unpivot|describe|summarize)\b/i;

export class QueryPipeline {
  readonly #hooks: Hooks;
  readonly #engine: Engine;
  readonly #phase: PhaseMachine;
  readonly #log: Logger;
  /** Queries started and not yet reported; keyed by the request object (no string hashing per query). */
  readonly #active = new Set<QueryRequest>();
  readonly #idleWaiters = new Set<() => void>();
  /**
   * Statement kind by SQL text. Classifying needs a DuckDB prepare (about 0.3 ms); a repeated
   * query (the cache-hit path) skips it. Only successful classifications are kept.
   */
  readonly #classifications = new LRUCache<string, Classification>({ max: 10_000, maxSize: 64 * 1024 * 1024, sizeCalculation: (_value, key) => key.length * 2 + 64 });

  readonly #maxSqlLength: number;

  constructor(options: { hooks: Hooks; engine: Engine; phase: PhaseMachine; log: Logger; maxSqlLength?: number }) {
    this.#maxSqlLength = options.maxSqlLength ?? DEFAULT_MAX_SQL_LENGTH;
    this.#hooks = options.hooks;
    this.#engine = options.engine;
    this.#phase = options.phase;
    this.#log = options.log;
    this.#hooks.query.before.tap({ name: 'core:statement-policy', stage: STAGE.AUTHORIZE }, createStatementPolicy((dataset) => this.#engine.writeRefusal(dataset)));
  }

  /**
   * Set by a plugin that asks `request.logicalPlan()` of the new texts it accepts (the results
   * cache with `cache_key_type: plan`): the plan of such a text not seen before is then started
   * at once, beside the prepare that classifies it, instead of after it.
   */
  planAhead: ((sql: string) => boolean) | undefined;

  /** Queries started and not yet finished streaming. */
  get activeCount(): number {
    return this.#active.size;
  }

  /** Resolves when no query is active. */
  whenIdle(): Promise<void> {
    if (this.#active.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.add(resolve));
  }

  async execute(options: ExecuteOptions): Promise<{ request: QueryRequest; result: QueryResult }> {
    if (!this.#phase.acceptsWork) throw new QuarryError('RUNTIME_SHUTTING_DOWN', 'the runtime is shutting down and accepts no new queries');
    if (options.sql.length > this.#maxSqlLength) {
      throw new QuarryError('SQL_TOO_LONG', `the SQL text is ${options.sql.length} characters; at most ${this.#maxSqlLength} are accepted (runtime.query.max_sql_length)`);
    }
    if (options.sql.trim() === '') throw new QuarryError('SQL_EMPTY', 'no SQL was given: send one SQL statement, e.g. SELECT 1');
    // The engine reads SQL as a C string: what follows a NUL byte would be dropped unseen.
    const nul = options.sql.indexOf('\0');
    if (nul !== -1) throw new QuarryError('SQL_INVALID', `the SQL text holds a NUL byte at offset ${nul}: SQL text may not contain NUL (U+0000)`);
    const abort = options.signal;
    const request = new PipelineQuery(options);
    const stages = request.stages;
    const started = stages.lap('door_in');
    this.#begin(request);
    // Prepared lazily: a statement whose classification is memoised and that a cache
    // answers never needs an engine connection.
    let preparing: Promise<PreparedQuery> | undefined;
    const prepare = () => (preparing ??= this.#engine.prepare(request.sql, { caller: request.principal }));
    // Prepared only to run now: live datasets are read before it is bound (one prepare, not two).
    const prepareToRun = () => (preparing ??= this.#engine.prepare(request.sql, { fillLive: true, caller: request.principal }));
    const memoised = this.#classifications.get(request.sql);
    // A new text beyond the planning limits is refused before anything plans it (checked once here).
    const tooComplex = memoised === undefined ? complexityRefusal(request.sql) : undefined;
    // A new text's plan, when a plugin keys by plans, is made beside its prepare (another connection).
    const early = memoised === undefined && tooComplex === undefined && this.planAhead?.(request.sql) === true && MAY_HAVE_PLAN.test(request.sql) ? this.#engine.logicalPlan(request.sql) : undefined;
    early?.catch(() => undefined);
    try {
      const known = memoised ?? (await this.#classify(request.sql, prepare, tooComplex));
      stages.lap('classify');
      if (known.refusal) {
        (await preparing?.catch(() => undefined))?.close();
        throw known.refusal;
      }
      request.kind = known.kind;
      request.statementType = known.statementType;
      request.datasets = [...known.datasets];
      let plan: Promise<string> | undefined;
      request.logicalPlan = () => (plan ??= early ?? prepare().then((query) => query.logicalPlan()));
      let result: QueryResult | undefined;
      let executionMs = () => 0;
      try {
        const { query, cache } = this.#hooks;
        // Hooks nobody tapped are skipped: each call costs a promise, on every query.
        if (tapped(query.before)) await query.before.promise(request);
        stages.lap('before');
        result = tapped(cache.lookup) ? await cache.lookup.promise(request) : undefined;
        stages.lap('cache_lookup');
        if (!result && tapped(query.instead)) {
          // An answer from elsewhere (a cluster's executors) is stored like the engine's.
          const routed = await query.instead.promise(request);
          if (routed) result = tapped(cache.store) ? await cache.store.promise(routed, request) : routed;
          stages.lap('routed');
        }
        if (result) {
          (await preparing?.catch(() => undefined))?.close();
        } else {
          const prepared = await prepareToRun();
          stages.lap('prepare');
          const stream = await prepared.execute(request.parameters, request.signal);
          stages.lap('execute');
          executionMs = stream.executionMs;
          const fresh: QueryResult = { schema: stream.schema, batches: stream.batches, cacheStatus: 'BYPASS', headers: this.#servedFromHeaders(request.datasets) };
          result = tapped(cache.store) ? await cache.store.promise(fresh, request) : fresh;
        }
      } catch (error) {
        (await preparing?.catch(() => undefined))?.close();
        throw error;
      }
      if (tapped(this.#hooks.query.result)) result = await this.#hooks.query.result.promise(result, request);
      const aborted = () => (abort instanceof LazyAbort ? abort.aborted : request.signal.aborted);
      return { request, result: this.#observe(request, result, started, executionMs, aborted) };
    } catch (error) {
      const failure = toQuarryError(error, 'QUERY_FAILED');
      await this.#after(request, started, { status: failure.code === 'QUERY_CANCELLED' ? 'cancelled' : 'error', error: failure, rows: 0, executionMs: 0, cacheStatus: undefined });
      throw failure;
    }
  }

  /**
   * The fast lane of a door that can send an answer already encoded (an HTTP cache hit): the
   * steps of `execute` for a statement whose classification is remembered and that a
   * `cache.peek` tap answers with a body encoded before for this door: `query.before`, the
   * answer, `query.after`, with no promise, engine connection or batch stream. Returns false,
   * having run nothing, when the query needs the whole path (`execute`). Otherwise exactly one
   * of `respond` (which must send the body at once) or `refuse` (a `query.before` tap refused)
   * is called, synchronously when every tap is synchronous.
   */
  answerEncoded(options: ExecuteOptions, encoding: string, respond: (answer: EncodedAnswer) => void, refuse: (error: QuarryError) => void): boolean {
    // A query.result tap wraps every result's batches (captured output): it must see this one too.
    if (!this.#phase.acceptsWork || tapped(this.#hooks.query.result) || !tapped(this.#hooks.cache.peek)) return false;
    const known = this.#classifications.get(options.sql);
    if (known === undefined || known.refusal) return false;
    const request = new PipelineQuery(options);
    request.kind = known.kind;
    request.statementType = known.statementType;
    request.datasets = [...known.datasets];
    request.stages.lap('door_in');
    const answer = this.#hooks.cache.peek.call(request, encoding);
    if (answer === undefined) return false;
    const started = request.stages.lap('cache_lookup');
    this.#begin(request);
    const afterQueryBefore = (error: unknown) => {
      if (error) {
        const failure = toQuarryError(error, 'QUERY_FAILED');
        this.#afterThen(request, started, { status: 'error', error: failure, rows: 0, executionMs: 0, cacheStatus: undefined }, () => refuse(failure));
        return;
      }
      answer.take();
      respond(answer);
      this.#afterThen(request, started, { status: 'ok', error: undefined, rows: answer.rows, executionMs: 0, cacheStatus: answer.cacheStatus }, () => undefined);
    };
    if (tapped(this.#hooks.query.before)) this.#hooks.query.before.callAsync(request, afterQueryBefore);
    else afterQueryBefore(undefined);
    return true;
  }

  /**
   * Classifies a statement and remembers it by its text (statement type and functions depend
   * on the text alone). A statement user SQL may never run is refused from its words,
   * unprepared (statement-gate.ts); a write the engine cannot prepare (a DELETE from a view) is
   * still a write, refused as one by the policy, or answered with the engine's error when the
   * caller may make it: that classification is not remembered.
   */
  async #classify(sql: string, prepare: () => Promise<PreparedQuery>, tooComplex: QuarryError | undefined): Promise<Classification> {
    const datasets = this.#engine.namesRead(sql);
    if (tooComplex) return { kind: 'other', statementType: 'UNKNOWN', datasets, refusal: tooComplex };
    const never = neverStatement(sql);
    if (never !== undefined) {
      const refused: Classification = { kind: 'other', statementType: never, datasets, refusal: neverStatementError(never) };
      this.#classifications.set(sql, refused);
      return refused;
    }
    // The function policy reads the engine's parse of the text: checked beside the prepare.
    const refusal = this.#engine.functionRefusal(sql);
    refusal.catch(() => undefined);
    let query: PreparedQuery;
    try {
      query = await prepare();
    } catch (error) {
      const write = writeStatement(sql);
      if (write === undefined) throw error;
      return { kind: 'write', statementType: write, datasets, refusal: undefined };
    }
    const classification: Classification = {
      kind: query.kind,
      statementType: query.statementType,
      datasets,
      // Reads and writes run (an INSERT ... SELECT too): both may call functions or name files.
      refusal: query.kind === 'other' ? undefined : await refusal,
    };
    this.#classifications.set(sql, classification);
    return classification;
  }

  /**
   * A query over an accelerated dataset whose first load is still running was answered by
   * the source (slower, and live): the response says so, and which datasets.
   */
  #servedFromHeaders(datasets: readonly string[]): Record<string, string> {
    const fromSource = this.#engine.servedFromSource(datasets);
    return fromSource.length === 0 ? {} : { 'x-quarry-served-from': 'source', 'x-quarry-loading': fromSource.join(',') };
  }

  /** Wraps the batches to count rows and fire `query.after` exactly once when the stream ends. */
  #observe(request: QueryRequest, result: QueryResult, started: number, executionMs: () => number, aborted: () => boolean): QueryResult {
    const source = result.batches;
    let rows = 0;
    let reported = false;
    // A successful write changes its dataset: results cached from it must go.
    const invalidateAfterWrite = async () => {
      const target = request.kind === 'write' ? insertTarget(request.sql) : undefined;
      if (target) await this.#hooks.cache.invalidate.promise({ datasets: [target], reason: 'write' });
    };
    const report = async (status: QueryOutcome['status'], error?: QuarryError) => {
      if (reported) return;
      reported = true;
      await this.#after(request, started, { status, error, rows, executionMs: executionMs(), cacheStatus: result.cacheStatus });
    };
    // -vv: a line per batch (rows, bytes, when it came), asked once per query.
    const log = this.#log.isEnabled('trace') ? this.#log : undefined;
    const stages = request.stages;
    const observed: AsyncIterable<RecordBatch> = {
      [Symbol.asyncIterator]() {
        const iterator = source[Symbol.asyncIterator]();
        return {
          async next() {
            // The door's time since the last batch went to encoding and writing it.
            stages.lap('door_out');
            try {
              const next = await iterator.next();
              stages.lap('stream');
              if (next.done) {
                await invalidateAfterWrite();
                await report('ok');
              }
              else {
                rows += next.value.numRows;
                log?.trace('batch', { query: request.id, rows: next.value.numRows, bytes: next.value.data.byteLength, total_rows: rows, at_ms: (performance.now() - started).toFixed(2) });
              }
              return next;
            } catch (error) {
              const failure = toQuarryError(error, 'QUERY_FAILED');
              await report(failure.code === 'QUERY_CANCELLED' ? 'cancelled' : 'error', failure);
              throw failure;
            }
          },
          async return() {
            stages.lap('door_out');
            await iterator.return?.();
            stages.lap('stream');
            await report(aborted() ? 'cancelled' : 'ok');
            return { done: true, value: undefined };
          },
        };
      },
    };
    // A door that sends a memoised body sends every row at once, then closes the batches.
    const memo = result.memo;
    const observedMemo: ResultMemo | undefined = memo && {
      rows: memo.rows,
      get: (name) => {
        const body = memo.get(name);
        if (body) rows = memo.rows;
        return body;
      },
      set: (name, body) => memo.set(name, body),
    };
    return { schema: result.schema, batches: observed, cacheStatus: result.cacheStatus, headers: result.headers, ...(observedMemo ? { memo: observedMemo } : {}) };
  }

  #after(
    request: QueryRequest,
    started: number,
    outcome: Outcome,
  ): Promise<void> {
    return new Promise((resolve) => this.#afterThen(request, started, outcome, resolve));
  }

  /** Fires `query.after` through tapable's callback path (no promise when every tap is synchronous). */
  #afterThen(
    request: QueryRequest,
    started: number,
    outcome: Outcome,
    done: () => void,
  ): void {
    // Written out, not spread: this runs for every query.
    const finished: QueryOutcome = {
      status: outcome.status,
      error: outcome.error,
      cacheStatus: outcome.cacheStatus,
      rows: outcome.rows,
      executionMs: outcome.executionMs,
      durationMs: performance.now() - started,
      endTime: new Date(),
    };
    this.#hooks.query.after.callAsync(request, finished, (error) => {
      if (error) this.#log.error('a query.after tap failed', { query: request.id, error: (error as Error).message });
      request.stages.lap('after');
      // -vv (very_verbose): one line per query with what it did and what it cost, by stage.
      if (this.#log.isEnabled('trace')) this.#log.trace('query', traceFields(request, finished));
      this.#end(request);
      done();
    });
  }

  #begin(request: QueryRequest): void {
    this.#active.add(request);
  }

  #end(request: QueryRequest): void {
    this.#active.delete(request);
    if (this.#active.size === 0) {
      for (const resolve of this.#idleWaiters) resolve();
      this.#idleWaiters.clear();
    }
  }
}

/** The trace log's `query` line: what the query did, what it cost, and where the time went (`ms_<stage>`). */
function traceFields(request: QueryRequest, finished: QueryOutcome): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    query: request.id, protocol: request.protocol, principal: request.principal.id, statement: request.statementType, datasets: request.datasets.join(','),
    status: finished.status, code: finished.error?.code, rows: finished.rows, cache: finished.cacheStatus, execution_ms: finished.executionMs.toFixed(2), total_ms: finished.durationMs.toFixed(2),
  };
  for (const stage of QUERY_STAGES) fields[`ms_${stage}`] = request.stages.ms[stage].toFixed(3);
  return fields;
}

const notPrepared = () => Promise.reject(new QuarryError('INTERNAL', 'the statement has not been prepared yet'));

/**
 * A query as it enters the pipeline: classified later (by the engine, or from memory). A
 * class, so that making one per query is a plain allocation (the signal is a prototype getter).
 */
class PipelineQuery implements QueryRequest {
  readonly id = randomUUID();
  readonly sql: string;
  readonly parameters: readonly unknown[];
  readonly protocol: Protocol;
  readonly principal: Principal;
  readonly inbound: InboundRequest | undefined;
  readonly startTime = new Date();
  kind: QueryRequest['kind'] = 'other';
  statementType = 'UNKNOWN';
  datasets: string[] = [];
  readonly state = new Map<string, unknown>();
  logicalPlan: () => Promise<string> = notPrepared;
  readonly stages: StageClock;
  readonly #abort: AbortSignal | LazyAbort | undefined;
  #ownSignal: AbortSignal | undefined;

  constructor(options: ExecuteOptions) {
    this.sql = options.sql;
    this.parameters = options.parameters ?? [];
    this.protocol = options.protocol;
    this.principal = options.principal;
    this.inbound = options.inbound;
    this.#abort = options.signal;
    this.stages = new StageClock(options.inbound?.arrivedAt ?? performance.now());
  }

  get signal(): AbortSignal {
    const abort = this.#abort;
    if (abort instanceof LazyAbort) return abort.signal;
    return abort ?? (this.#ownSignal ??= new AbortController().signal);
  }
}
