import { Readable } from 'node:stream';
import type { RecordBatch } from 'apache-arrow';
import type { FastifyReply } from 'fastify';
import type { QueryResult } from '../pipeline/types.js';
import { encodeArrowStream, encodeCsv, encodeJson } from './encoders/index.js';
import { whenClientGone } from './client-gone.js';
import { CONTENT_TYPES, MEMO_NAMES, type ResultFormat } from './negotiate.js';

/**
 * Streams a query result as the response. The first batch is read before the status line
 * is sent, so a query that fails at once still gets a clean error status; later failures
 * can only cut the response short (the status is already on the wire).
 */
export async function sendResult(reply: FastifyReply, result: QueryResult, format: ResultFormat, extraHeaders: Record<string, string>): Promise<FastifyReply> {
  const iterator = result.batches[Symbol.asyncIterator]();
  const memoName = MEMO_NAMES[format];
  const memoised = result.memo?.get(memoName);
  if (memoised) {
    // A cache hit encoded before: the same bytes again, no decoding or encoding.
    setHeaders(reply, result, format, extraHeaders);
    void iterator.return?.();
    return reply.header('content-length', memoised.byteLength).send(memoised);
  }
  // A client that leaves before the body streams would otherwise leave the result open
  // (the query never reported finished, its engine connection held): close it then.
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    void iterator.return?.();
  };
  whenClientGone(reply.raw, close);
  let first: IteratorResult<RecordBatch> | undefined = await iterator.next();
  const replayed: AsyncIterable<RecordBatch> = {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        if (first === undefined) return iterator.next();
        const value = first;
        first = undefined;
        return Promise.resolve(value);
      },
      return: async () => {
        if (!closed) {
          closed = true;
          await iterator.return?.();
        }
        return { done: true, value: undefined };
      },
    }),
  };
  const input = { schema: result.schema, batches: replayed };
  const body = format === 'arrow' ? encodeArrowStream(input) : format === 'csv' ? encodeCsv(input) : encodeJson(input);
  setHeaders(reply, result, format, extraHeaders);
  // Small answers (most queries, every typical cache hit) go out as one buffer with a
  // Content-Length: one write instead of a chunked stream's several. Larger ones stream.
  const encoded = body[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let headBytes = 0;
  for (;;) {
    const next = await encoded.next();
    if (next.done) {
      const whole = head.length === 1 ? head[0]! : Buffer.concat(head, headBytes);
      result.memo?.set(memoName, whole);
      return reply.header('content-length', headBytes).send(whole);
    }
    head.push(next.value);
    headBytes += next.value.byteLength;
    if (headBytes >= SINGLE_WRITE_BYTES) break;
  }
  async function* rest(): AsyncGenerator<Buffer> {
    yield* head;
    try {
      for (let next = await encoded.next(); !next.done; next = await encoded.next()) yield next.value;
    } finally {
      await encoded.return?.(undefined);
    }
  }
  return reply.send(Readable.from(rest(), { objectMode: false, highWaterMark: 1 << 20 }));
}

function setHeaders(reply: FastifyReply, result: QueryResult, format: ResultFormat, extraHeaders: Record<string, string>): void {
  reply.header('content-type', CONTENT_TYPES[format]);
  reply.header('x-cache', result.cacheStatus);
  for (const name in extraHeaders) reply.header(name, extraHeaders[name]);
  for (const name in result.headers) reply.header(name, result.headers[name]);
}

/** Answers up to this size are sent in one write; larger ones are streamed as they are encoded. */
const SINGLE_WRITE_BYTES = 64 * 1024;
