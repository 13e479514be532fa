/**
 * Where a cache hit's time goes inside the runtime (no HTTP): the whole pipeline for a HIT,
 * the hit lane's shorter path for a body encoded before, beside the core's own per-request engine prepare (parse, bind, classify) that runs
 * before `cache.lookup`, the lookup tap alone, and the logical plan a `plan` key asks for.
 */
import { createLogger } from '../../core/log.js';
import { loadManifest } from '../../core/manifest/load.js';
import { ANONYMOUS, type QueryRequest } from '../../core/pipeline/types.js';
import { Runtime } from '../../core/runtime.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { createResultsCachePlugin } from '../../plugins/results-cache/index.js';
import { median } from '../common/server.js';

export interface InProcessFigures {
  pipelineHitMs: number;
  /** What the HTTP hit lane runs for a hit encoded before (QueryPipeline.answerEncoded). */
  encodedHitMs: number;
  prepareMs: number;
  lookupMs: number;
  prepareAndPlanMs: number;
}

async function medianOf(count: number, work: () => Promise<unknown>): Promise<number> {
  for (let index = 0; index < 200; index++) await work();
  const samples: number[] = [];
  for (let index = 0; index < count; index++) {
    const started = performance.now();
    await work();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

export async function measureInProcess(directory: string, sql: string, bundle: 'default' | 'results-cache only', count = 2_000): Promise<InProcessFigures> {
  const loaded = await loadManifest({ path: directory, bundle: bundle === 'default' ? defaultPlugins() : [createResultsCachePlugin()] });
  const runtime = new Runtime({ manifest: loaded.manifest, source: loaded.source, plugins: loaded.plugins, log: createLogger({ level: 'info', sink: () => undefined }), http: '127.0.0.1:0', flight: false });
  await runtime.start();
  await runtime.whenLoaded();
  try {
    let lastRequest: QueryRequest | undefined;
    const hit = async () => {
      const { request, result } = await runtime.pipeline.execute({ sql, protocol: 'internal', principal: ANONYMOUS });
      for await (const batch of result.batches) void batch;
      lastRequest = request;
    };
    const pipelineHitMs = await medianOf(count, hit);
    // Keep a body under a door name, as the HTTP door does after a hit, then answer from it.
    const kept = await runtime.pipeline.execute({ sql, protocol: 'internal', principal: ANONYMOUS });
    kept.result.memo?.set('bench:encoded', Buffer.from('[]'));
    await kept.result.batches[Symbol.asyncIterator]().return?.();
    const encodedHit = () => new Promise<void>((resolve, reject) => {
      const taken = runtime.pipeline.answerEncoded({ sql, protocol: 'internal', principal: ANONYMOUS }, 'bench:encoded', () => resolve(), reject);
      if (!taken) reject(new Error('the pipeline did not answer from the kept body'));
    });
    const encodedHitMs = await medianOf(count, encodedHit);
    // The lookup hook on a request the pipeline classified (its plan is memoised by text).
    const lookup = async () => {
      lastRequest!.state.clear();
      await runtime.hooks.cache.lookup.promise(lastRequest!);
    };
    const prepare = async () => (await runtime.engine.prepare(sql)).close();
    const prepareAndPlan = async () => {
      const prepared = await runtime.engine.prepare(sql);
      await prepared.logicalPlan();
      prepared.close();
    };
    return { pipelineHitMs, encodedHitMs, lookupMs: await medianOf(count, lookup), prepareMs: await medianOf(count, prepare), prepareAndPlanMs: await medianOf(count, prepareAndPlan) };
  } finally {
    await runtime.stop();
  }
}
