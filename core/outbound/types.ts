/**
 * The outbound-request seam. Every request a connector makes to an upstream source goes
 * through the core's one `OutboundClient`, and each attempt passes the `outbound.request`
 * hook first: a tap may wait (rate control), refuse by throwing, or register a release that
 * runs once the attempt's response body was read or it failed.
 */
export interface OutboundRequest {
  readonly url: URL;
  /** `scheme://host:port`: limits are kept per upstream origin. */
  readonly origin: string;
  readonly method: string;
  /** Which connector asked: `https`, `graphql`, `github`, ... */
  readonly connector: string;
  /** The dataset the request serves, with its (secret-resolved) params: per-dataset overrides live there. */
  readonly dataset: OutboundDataset | undefined;
  /**
   * The authentication context (e.g. a hash of the token used), for limits counted per
   * credential rather than per origin; undefined for anonymous requests.
   */
  readonly authContext: string | undefined;
  /** 0 for the first attempt, 1 for the first retry, ... */
  readonly attempt: number;
  /** Aborts when the caller gives up (dataset load timeout, shutdown). Waiting taps must honour it. */
  readonly signal: AbortSignal;
  /** Registers work to run when this attempt ends (successfully or not), in reverse order of registration. */
  defer(release: () => void): void;
}

export interface OutboundDataset {
  readonly name: string;
  readonly params: Readonly<Record<string, string>>;
}

/** One logical request; the client retries it as a whole. */
export interface OutboundCall {
  readonly url: string | URL;
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly connector: string;
  readonly dataset?: OutboundDataset;
  readonly authContext?: string;
  /** Per attempt, including reading the body. Default 30 s. */
  readonly timeoutMs?: number;
  /** Retries after the first attempt on 429, 5xx, timeouts and network errors. Default 3. */
  readonly maxRetries?: number;
  /** A response body larger than this fails the call (not retried). Default 1 GiB. */
  readonly maxResponseBytes?: number;
  /** When set, the body is streamed into this file instead of memory. */
  readonly destination?: string;
  readonly signal?: AbortSignal;
  /**
   * Service-specific throttling beyond 429/5xx (e.g. GitHub's 403 with `x-ratelimit-remaining: 0`):
   * return the delay in ms to retry after, or undefined when the failure is final.
   */
  readonly throttledFor?: (status: number, headers: Headers) => number | undefined;
}

export interface OutboundResponse {
  readonly status: number;
  readonly headers: Headers;
  /** The body, unless it was written to `destination`. */
  readonly body: Buffer | undefined;
  readonly bytes: number;
  /** How many attempts it took (1 when the first succeeded). */
  readonly attempts: number;
}
