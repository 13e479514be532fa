import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { RecordBatchReader, type RecordBatch } from 'apache-arrow';
import { ServerError, TransportError } from '../errors.js';
import type { HttpClient } from '../http/http-client.js';
import { servedFromSourceOf, type ArrowQueryResult, type CacheStatus, type QueryOptions, type QueryTransport, type TextFormat, type TextQueryResult } from './query-transport.js';

const ARROW_STREAM = 'application/vnd.apache.arrow.stream';
const acceptFor: Record<TextFormat, string> = { json: 'application/json', csv: 'text/csv' };

/** Queries over `POST /v1/sql`: the SQL text as the body, the result format chosen by `Accept`. */
export class HttpQueryTransport implements QueryTransport {
  constructor(private readonly client: HttpClient) {}

  get endpoint(): string {
    return this.client.endpoint.display;
  }

  async queryArrow(sql: string, options: QueryOptions): Promise<ArrowQueryResult> {
    const response = await this.client.send('v1/sql', this.request(sql, ARROW_STREAM, options));
    const contentType = String(response.headers['content-type'] ?? '');
    if (!contentType.toLowerCase().startsWith(ARROW_STREAM)) {
      response.body.resume();
      throw new TransportError(
        `${this.endpoint} answered ${contentType || 'no content type'} instead of an Arrow stream: is it a quarryd runtime?`,
      );
    }
    try {
      const reader = await RecordBatchReader.from(response.body);
      await reader.open();
      return {
        schema: reader.schema ?? undefined,
        batches: this.guarded(reader as AsyncIterable<RecordBatch>, response.body, options.signal),
        cacheStatus: cacheStatusOf(response.headers),
        servedFromSource: servedFromSourceOf((name) => headerText(response.headers, name)),
      };
    } catch (error) {
      throw this.client.translateError(error, options.signal);
    }
  }

  async queryText(sql: string, format: TextFormat, options: QueryOptions): Promise<TextQueryResult> {
    const response = await this.client.send('v1/sql', this.request(sql, acceptFor[format], options));
    return {
      chunks: this.guarded(response.body as AsyncIterable<Uint8Array>, response.body, options.signal),
      cacheStatus: cacheStatusOf(response.headers),
      servedFromSource: servedFromSourceOf((name) => headerText(response.headers, name)),
    };
  }

  close(): void {
    this.client.close();
  }

  private request(sql: string, accept: string, options: QueryOptions) {
    return {
      method: 'POST' as const,
      body: sql,
      // With trailers, a result that fails after its response started ends with the engine's
      // error in them (x-quarry-status: error) instead of a connection cut without a reason.
      headers: { 'content-type': 'text/plain; charset=utf-8', accept, te: 'trailers' },
      ...(options.signal ? { signal: options.signal } : {}),
    };
  }

  /**
   * The runtime streams results, so a failure after the first batch (or Ctrl-C) surfaces
   * while reading: translate it like a failure before the response.
   */
  private async *guarded<T>(source: AsyncIterable<T>, message: IncomingMessage, signal: AbortSignal | undefined): AsyncGenerator<T> {
    try {
      yield* source;
    } catch (error) {
      const failed = trailerFailure(message);
      if (failed) throw failed;
      const translated = this.client.translateError(error, signal);
      if (!(translated instanceof TransportError)) throw translated;
      // Part of the result already arrived: say so rather than "request failed".
      throw new TransportError(`the result from ${this.endpoint} broke off before the end: ${(error as Error).message}`, { cause: error });
    }
    const failed = trailerFailure(message);
    if (failed) throw failed;
  }
}

/** The error a result's trailers report (`x-quarry-status: error`), once its body has ended. */
function trailerFailure(message: IncomingMessage): ServerError | undefined {
  if (message.trailers['x-quarry-status'] !== 'error') return undefined;
  const code = message.trailers['x-quarry-error-code'];
  const text = message.trailers['x-quarry-error-message'];
  let serverMessage = 'the query failed after its result started';
  try {
    if (text) serverMessage = decodeURIComponent(text);
  } catch {
    serverMessage = text ?? serverMessage;
  }
  return new ServerError(message.statusCode ?? 200, code, serverMessage);
}

function cacheStatusOf(headers: IncomingHttpHeaders): CacheStatus {
  const value = headers['x-cache'] ?? headers['results-cache-status'];
  const text = Array.isArray(value) ? value[0] : value;
  return text ? text.trim() : undefined;
}

function headerText(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}
