import {
  AsyncParallelHook,
  AsyncSeriesBailHook,
  AsyncSeriesHook,
  AsyncSeriesWaterfallHook,
  SyncBailHook,
} from 'tapable';
import type { QuarryError } from '../errors/quarry-error.js';
import { guardHooks, type TapTiming } from './guard.js';
import type { Manifest } from '../manifest/types.js';
import type { OfflineCheck } from '../engine/check/offline-check.js';
import type { OutboundRequest } from '../outbound/types.js';
import type {
  CacheInvalidation,
  DatasetLoadEvent,
  DatasetRegisteredEvent,
  EncodedAnswer,
  InboundRequest,
  QueryOutcome,
  QueryRequest,
  QueryResult,
} from '../pipeline/types.js';

/** Passed to `shutdown.drain` taps: how long is left before the runtime stops anyway. */
export interface DrainContext {
  /** Milliseconds until `runtime.shutdown_timeout` expires. */
  readonly remainingMs: () => number;
  readonly signal: AbortSignal;
}

/**
 * The whole extension surface of the runtime, declared once and frozen.
 * docs/hooks.md has a table per hook: kind, when it fires, arguments, neighbours.
 */
export function createHooks(timing?: TapTiming) {
  const hooks = Object.freeze({
    /** Waterfall, once at start-up after validation: taps may check or extend the manifest; the result is frozen. */
    config: new AsyncSeriesWaterfallHook<[Manifest]>(['manifest']),
    /** Series, once after the config is frozen and the engine exists, before datasets load and listeners bind: open resources here. */
    startup: new AsyncSeriesHook<[]>([]),
    /** Series, only under `quarryd --check` (never with `startup`): bind what start-up would create on a scratch engine, report what would fail. */
    check: new AsyncSeriesHook<[OfflineCheck]>(['check']),
    /** Series, every inbound request on any transport, before auth: observe or refuse (throw a QuarryError). */
    request: new AsyncSeriesHook<[InboundRequest]>(['request']),
    /** Bail, every non-public request after `request`: taps set `request.principal` or return a QuarryError to refuse. */
    auth: new AsyncSeriesBailHook<[InboundRequest], QuarryError | undefined>(['request']),
    query: Object.freeze({
      /** Series, after the statement is classified, before any cache or engine: refuse by throwing. */
      before: new AsyncSeriesHook<[QueryRequest]>(['query']),
      /** Bail, when no cache answered: the first result returned replaces the local engine (cluster routing). */
      instead: new AsyncSeriesBailHook<[QueryRequest], QueryResult | undefined>(['query']),
      /** Waterfall, every result whatever answered it (cache, instead, engine), just before it streams: observe or wrap the batches. */
      result: new AsyncSeriesWaterfallHook<[QueryResult, QueryRequest]>(['result', 'query']),
      /** Series, once the result was fully sent, failed or was cancelled. */
      after: new AsyncSeriesHook<[QueryRequest, QueryOutcome]>(['query', 'outcome']),
    }),
    cache: Object.freeze({
      /** Bail, after `query.before`: the first result returned answers the query (HIT or STALE). */
      lookup: new AsyncSeriesBailHook<[QueryRequest], QueryResult | undefined>(['query']),
      /**
       * Sync bail, on a door's fast lane, before `query.before`: an answer already encoded
       * under the door's name (e.g. `http:json`), not yet counted as served (its `take()`
       * does that, once `query.before` passed); none sends the query down the whole path.
       * Taps must not throw for a request they cannot answer. Not asked for a request with
       * Cache-Control (its directives change what may answer: `lookup` decides).
       */
      peek: new SyncBailHook<[QueryRequest, string], EncodedAnswer | undefined>(['query', 'encoding']),
      /** Waterfall, for results the engine produced: taps may wrap the batch stream to keep a copy. */
      store: new AsyncSeriesWaterfallHook<[QueryResult, QueryRequest]>(['result', 'query']),
      /** Series, when datasets change (refresh, write): drop what read them. */
      invalidate: new AsyncSeriesHook<[CacheInvalidation]>(['invalidation']),
    }),
    datasets: Object.freeze({
      /** Series, after every dataset load or refresh attempt, successful or not. */
      loaded: new AsyncSeriesHook<[DatasetLoadEvent]>(['event']),
      /** Series, not awaited, when a dataset's name becomes queryable: at start-up, or later for a source slow to give its columns. */
      registered: new AsyncSeriesHook<[DatasetRegisteredEvent]>(['event']),
    }),
    outbound: Object.freeze({
      /** Series, before every attempt of every upstream request a connector makes: wait (rate control), refuse by throwing, `defer` a release. */
      request: new AsyncSeriesHook<[OutboundRequest]>(['request']),
    }),
    shutdown: Object.freeze({
      /** Parallel, first step of shutdown: finish in-flight work within the remaining time. */
      drain: new AsyncParallelHook<[DrainContext]>(['drain']),
      /** Series in stage order (listeners, plugins, engine): release resources. */
      stop: new AsyncSeriesHook<[]>([]),
    }),
  });
  guardHooks(hooks, '', timing);
  return hooks;
}

export type Hooks = ReturnType<typeof createHooks>;
