import type { Metadata } from '@grpc/grpc-js';
import { metadataOf } from '../flight-errors.js';
import type { RecordBatch, Schema } from 'apache-arrow';
import type { InboundRequest } from '../../pipeline/types.js';
import type { FlightContext } from '../flight-context.js';
import { streamResult, type WritableCall } from '../result-streaming.js';
import { batchesInMemory } from '../../engine/arrow/batches-in-memory.js';

export type DoGetCall = WritableCall & { sendMetadata(metadata: Metadata): void };

export interface QueryToStream {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /** The statement handle the query runs under, so CancelFlightInfo can reach it. */
  readonly handle?: Uint8Array | undefined;
}

/**
 * Runs a query through the pipeline (auth already done: statement policy, cache, engine,
 * task history) and streams its result. `x-cache` and the result's headers go out as
 * initial metadata before the first FlightData, as HTTP sends them as headers.
 */
export async function streamQuery(context: FlightContext, call: DoGetCall, inbound: InboundRequest, signal: AbortSignal, query: QueryToStream): Promise<void> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  signal.addEventListener('abort', abort, { once: true });
  const untrack = query.handle ? context.running.track(query.handle, controller) : () => undefined;
  context.stats.activeStreams += 1;
  try {
    const { result } = await context.pipeline.execute({
      sql: query.sql,
      parameters: query.parameters,
      protocol: 'flight',
      principal: inbound.principal,
      inbound,
      signal: controller.signal,
    });
    call.sendMetadata(metadataOf({ ...inbound.responseHeaders, ...result.headers, 'x-cache': result.cacheStatus }));
    await streamResult(call, result, { maxMessageBytes: context.limits.splitMessageBytes, signal: controller.signal, stats: context.stats });
  } finally {
    context.stats.activeStreams -= 1;
    untrack();
    signal.removeEventListener('abort', abort);
  }
}

/** Streams a result the runtime computed itself (metadata commands): one or a few batches. */
export async function streamBatches(context: FlightContext, call: DoGetCall, signal: AbortSignal, schema: Schema, batches: readonly RecordBatch[]): Promise<void> {
  context.stats.activeStreams += 1;
  try {
    await streamResult(call, { schema, batches: batchesInMemory(batches) }, { maxMessageBytes: context.limits.splitMessageBytes, signal, stats: context.stats });
  } finally {
    context.stats.activeStreams -= 1;
  }
}

