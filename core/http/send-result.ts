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
  return reply.send(Readable.from(body, { objectMode: false, highWaterMark: 1 << 20 }));
}
