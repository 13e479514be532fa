import { Readable } from 'node:stream';
import type { RecordBatch } from 'apache-arrow';
import type { FastifyReply } from 'fastify';
import { toQuarryError } from '../errors/quarry-error.js';
import type { Logger } from '../log.js';
import type { QueryResult } from '../pipeline/types.js';
import { encodeArrowStream, encodeCsv, encodeJson, encodeTable } from './encoders/index.js';
import { encodeSpiceEnvelope } from './encoders/spice-envelope.js';
import { whenClientGone } from './client-gone.js';
import { CONTENT_TYPES, MEMO_NAMES, type ResultFormat } from './negotiate.js';

/**
 * Streams a query result as the response. The first 64 KiB of the encoded answer are made
 * before the status line is sent, so a query that fails early still gets its error status
 * and JSON body. A failure after that can no longer change the status (it is on the wire):
 * the chunked body then ends without its terminating chunk, so every HTTP client reports an
 * incomplete body instead of a short result that looks whole. A client that sent
 * `TE: trailers` gets the terminating chunk with trailers instead: `x-quarry-status` (`ok` or
 * `error`) always, and on failure `x-quarry-error-code` and `x-quarry-error-message`
 * (percent-encoded, as gRPC encodes its messages). See docs/http.md.
 */
export async function sendResult(reply: FastifyReply, result: QueryResult, format: ResultFormat, extraHeaders: Record<string, string>, log?: Logger): Promise<FastifyReply> {
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
  const body = ENCODERS[format](input);
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
  const trailers = wantsTrailers(reply) ? new FailureTrailers(reply) : undefined;
  async function* rest(): AsyncGenerator<Buffer> {
    yield* head;
    try {
      for (let next = await encoded.next(); !next.done; next = await encoded.next()) yield next.value;
    } catch (error) {
      const failure = toQuarryError(error, 'QUERY_FAILED');
      // A client that left (its query cancelled) is no failure worth a warning.
      const report = failure.code === 'QUERY_CANCELLED' ? log?.debug : log?.warn;
      report?.call(log, 'query failed after its response started: the body was cut short', { route: reply.request.url, code: failure.code, error: failure.message, trailers: trailers !== undefined });
      // With trailers, the body ends in order and the trailers say it failed; without them,
      // the stream's error makes fastify destroy the socket before the terminating chunk.
      if (trailers === undefined) throw failure;
      trailers.failure = failure;
    } finally {
      await encoded.return?.(undefined);
    }
  }
  return reply.send(Readable.from(rest(), { objectMode: false, highWaterMark: 1 << 20 }));
}

/** Whether the request's `TE` header accepts trailers (HTTP/1.1 chunked responses only). */
function wantsTrailers(reply: FastifyReply): boolean {
  const te = reply.request.headers.te;
  return typeof te === 'string' && te.split(',').some((part) => part.split(';')[0]!.trim().toLowerCase() === 'trailers') && reply.request.raw.httpVersion === '1.1';
}

/** Fastify asks each declared trailer for its value once the body has ended; an error in its callback leaves that trailer out. */
class FailureTrailers {
  failure: { code: string; message: string } | undefined;

  constructor(reply: FastifyReply) {
    reply.trailer('x-quarry-status', (_reply, _payload, done) => done(null, this.failure === undefined ? 'ok' : 'error'));
    reply.trailer('x-quarry-error-code', (_reply, _payload, done) => (this.failure === undefined ? done(NOT_FAILED) : done(null, this.failure.code)));
    reply.trailer('x-quarry-error-message', (_reply, _payload, done) => (this.failure === undefined ? done(NOT_FAILED) : done(null, encodeURIComponent(this.failure.message))));
  }
}

/** Omits the error trailers of a result that did not fail. */
const NOT_FAILED = new Error('the result did not fail: no error trailer');

function setHeaders(reply: FastifyReply, result: QueryResult, format: ResultFormat, extraHeaders: Record<string, string>): void {
  reply.header('content-type', CONTENT_TYPES[format]);
  reply.header('x-cache', result.cacheStatus);
  for (const name in extraHeaders) reply.header(name, extraHeaders[name]);
  for (const name in result.headers) reply.header(name, result.headers[name]);
}

const ENCODERS: Record<ResultFormat, (input: { schema: QueryResult['schema']; batches: AsyncIterable<RecordBatch> }) => AsyncIterable<Buffer>> = {
  'json-text': encodeJson,
  json: encodeJson,
  csv: (input) => encodeCsv(input),
  arrow: (input) => encodeArrowStream(input),
  table: encodeTable,
  'spice-json': (input) => encodeSpiceEnvelope(input),
};

/** Answers up to this size are sent in one write; larger ones are streamed as they are encoded. */
const SINGLE_WRITE_BYTES = 64 * 1024;
