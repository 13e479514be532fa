import { Readable } from 'node:stream';
import type { RecordBatch } from 'apache-arrow';
import type { FastifyReply } from 'fastify';
import type { QueryResult } from '../pipeline/types.js';
import { encodeArrowStream, encodeCsv, encodeJson } from './encoders/index.js';
import { CONTENT_TYPES, type ResultFormat } from './negotiate.js';

/**
 * Streams a query result as the response. The first batch is read before the status line
 * is sent, so a query that fails at once still gets a clean error status; later failures
 * can only cut the response short (the status is already on the wire).
 */
export async function sendResult(reply: FastifyReply, result: QueryResult, format: ResultFormat, extraHeaders: Record<string, string>): Promise<FastifyReply> {
  const iterator = result.batches[Symbol.asyncIterator]();
  // A client that leaves before the body streams would otherwise leave the result open
  // (the query never reported finished, its engine connection held): close it then.
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    void iterator.return?.();
  };
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) close();
  });
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
  reply.header('content-type', CONTENT_TYPES[format]);
  reply.header('x-cache', result.cacheStatus);
  for (const [name, value] of Object.entries({ ...extraHeaders, ...result.headers })) reply.header(name, value);
  // Small answers (most queries, every typical cache hit) go out as one buffer with a
  // Content-Length: one write instead of a chunked stream's several. Larger ones stream.
  const encoded = body[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let headBytes = 0;
  for (;;) {
    const next = await encoded.next();
    if (next.done) return reply.header('content-length', headBytes).send(head.length === 1 ? head[0] : Buffer.concat(head, headBytes));
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

/** Answers up to this size are sent in one write; larger ones are streamed as they are encoded. */
const SINGLE_WRITE_BYTES = 64 * 1024;
