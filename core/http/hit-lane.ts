import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { QuarryError } from '../errors/quarry-error.js';
import type { Hooks } from '../hooks/hooks.js';
import type { PhaseMachine } from '../lifecycle/phase.js';
import { admitThen } from '../pipeline/admission.js';
import type { EncodedAnswer, InboundRequest } from '../pipeline/types.js';
import type { ExecuteOptions } from '../pipeline/pipeline.js';
import { inboundOf, markArrival } from './inbound.js';
import { CONTENT_TYPES, MEMO_NAMES, negotiateFormat } from './negotiate.js';

/** The route the lane serves, and the only one. */
export const HIT_LANE_ROUTE = '/v1/sql';

/** Bodies the lane reads itself at most (a SQL text; larger ones go to fastify unread). */
const MAX_LANE_BODY_BYTES = 64 * 1024;

/** The pipeline's `answerEncoded`, as the `/v1/sql` route hands it to the lane. */
export type EncodedAnswerer = (options: ExecuteOptions, encoding: string, respond: (answer: EncodedAnswer) => void, refuse: (error: QuarryError) => void) => boolean;

/**
 * What a plugin that hooks fastify per request must also do for the lane's answers, which
 * never pass through fastify (docs/hooks.md, "The HTTP hit lane").
 */
export interface HitLaneObserver {
  /** Adds or extends response headers before the head is written (CORS). */
  readonly headers?: (request: IncomingMessage, headers: Record<string, string>) => void;
  /** After the answer went out: its status and the milliseconds since the request arrived (request metrics). */
  readonly answered?: (request: IncomingMessage, statusCode: number, elapsedMs: number) => void;
}

/** What the lane learned of a request it hands to fastify; read by the core's fastify hooks. */
export interface Handover {
  /** The body, already read from the socket. */
  readonly body: Buffer;
  /** Set once the request passed (or failed) admission: fastify must not admit it again. */
  readonly inbound?: InboundRequest;
  /** Admission's refusal, or a `query.before` refusal (that query has already been reported). */
  readonly error?: unknown;
}

const HANDOVER = Symbol('quarry.hit-lane.handover');
type Handed = IncomingMessage & { [HANDOVER]?: Handover };

/** The lane's handover for a request fastify now serves, if it came through the lane. */
export function handoverOf(request: IncomingMessage): Handover | undefined {
  return (request as Handed)[HANDOVER];
}

/** The handed-over body as the stream fastify's body parser reads (`preParsing`). */
export function bodyStream(handover: Handover): Readable {
  return Readable.from([handover.body], { objectMode: false });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The HTTP hit lane: `POST /v1/sql` requests whose answer is a results-cache entry already
 * encoded for them are answered here, in front of fastify, with the same admission (request
 * and auth hooks), the same pipeline steps (`QueryPipeline.answerEncoded`: cache.peek,
 * query.before, query.after) and the same headers and bytes as the route would send. Fastify's
 * routing, hooks and reply objects cost several times what a hit itself costs; a hit is the
 * one answer common and cheap enough for that to matter.
 *
 * Everything else goes to fastify unchanged: other routes, a body that is not plain SQL
 * text, a Cache-Control or custom key header, a miss. A request the lane already read or
 * admitted carries a `Handover`, so fastify neither reads the body nor runs admission twice,
 * and answers a refusal the lane met exactly as it answers its own.
 */
export class HitLane {
  readonly #hooks: Hooks;
  readonly #phase: PhaseMachine;
  readonly #bodyLimit: number;
  readonly #observers: HitLaneObserver[] = [];
  #answerer: EncodedAnswerer | undefined;
  #fastify: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;

  constructor(options: { hooks: Hooks; phase: PhaseMachine; bodyLimit: number }) {
    this.#hooks = options.hooks;
    this.#phase = options.phase;
    this.#bodyLimit = Math.min(options.bodyLimit, MAX_LANE_BODY_BYTES);
  }

  /** Fastify's own request handler, for everything the lane does not answer. */
  setFallback(handler: (request: IncomingMessage, response: ServerResponse) => void): void {
    this.#fastify = handler;
  }

  /** Set by the `/v1/sql` route; until then the lane answers nothing. */
  setAnswerer(answerer: EncodedAnswerer): void {
    this.#answerer = answerer;
  }

  observe(observer: HitLaneObserver): void {
    this.#observers.push(observer);
  }

  /** The server's request listener. */
  readonly handle = (request: IncomingMessage, response: ServerResponse): void => {
    const arrived = markArrival(request);
    if (!this.#takes(request)) return this.#handOver(request, response, undefined);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => {
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      this.#answer(request, response, body, arrived);
    });
    // A client that goes away mid-body gets nothing: there is nobody to answer.
    request.once('error', () => response.destroy());
  };

  /**
   * Only a plain-text SQL body of known, small length, while the runtime takes work, and
   * without Cache-Control: its directives change what may answer (`cache.peek` is not asked,
   * see hooks.ts), so such a request goes to fastify unread rather than read, admitted and
   * peeked at for nothing — every `no-cache` query paid that before the route served it.
   */
  #takes(request: IncomingMessage): boolean {
    if (request.method !== 'POST' || request.url !== HIT_LANE_ROUTE || this.#answerer === undefined || !this.#phase.acceptsWork) return false;
    const headers = request.headers;
    if (headers['cache-control'] !== undefined) return false;
    const length = Number(headers['content-length']);
    if (!(length > 0 && length <= this.#bodyLimit) || headers['transfer-encoding'] !== undefined || headers.expect !== undefined) return false;
    const contentType = headers['content-type'];
    return contentType === undefined || contentType.startsWith('text/plain');
  }

  #answer(request: IncomingMessage, response: ServerResponse, body: Buffer, arrived: number): void {
    let sql: string;
    try {
      sql = utf8.decode(body);
    } catch {
      return this.#handOver(request, response, { body });
    }
    const inbound = inboundOf(request, HIT_LANE_ROUTE, { public: false, write: false });
    admitThen(this.#hooks, inbound, (admissionError) => {
      if (admissionError) return this.#handOver(request, response, { body, inbound, error: admissionError });
      const format = negotiateFormat(request.headers.accept);
      const respond = (answer: EncodedAnswer) => this.#send(request, response, inbound, format, answer, arrived);
      const refuse = (error: QuarryError) => this.#handOver(request, response, { body, inbound, error });
      const options: ExecuteOptions = { sql, protocol: 'http', principal: inbound.principal, inbound };
      if (!this.#answerer!(options, MEMO_NAMES[format], respond, refuse)) this.#handOver(request, response, { body, inbound });
    });
  }

  /** The head and body `sendResult` would send for a memoised answer, in one write. */
  #send(request: IncomingMessage, response: ServerResponse, inbound: InboundRequest, format: keyof typeof CONTENT_TYPES, answer: EncodedAnswer, arrived: number): void {
    const headers: Record<string, string> = { 'content-type': CONTENT_TYPES[format], 'x-cache': answer.cacheStatus };
    for (const name in inbound.responseHeaders) headers[name] = inbound.responseHeaders[name]!;
    for (const name in answer.headers) headers[name] = answer.headers[name]!;
    headers['content-length'] = String(answer.body.byteLength);
    for (const observer of this.#observers) observer.headers?.(request, headers);
    response.writeHead(200, headers);
    response.end(answer.body);
    const elapsedMs = performance.now() - arrived;
    for (const observer of this.#observers) observer.answered?.(request, 200, elapsedMs);
  }

  #handOver(request: IncomingMessage, response: ServerResponse, handover: Handover | undefined): void {
    if (handover !== undefined) (request as Handed)[HANDOVER] = handover;
    this.#fastify!(request, response);
  }
}
