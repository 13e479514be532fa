/**
 * The page's only way to the runtime: same-origin fetches of its HTTP API. With API keys on, the
 * key the user typed is kept in session storage (gone when the tab closes) and sent as the
 * `X-API-Key` header: never in a URL, so it reaches no log or history.
 */
const KEY_STORAGE = 'quarry.playground.api-key';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function storedApiKey(): string | null {
  return sessionStorage.getItem(KEY_STORAGE);
}

export function storeApiKey(key: string | null): void {
  if (key === null) sessionStorage.removeItem(KEY_STORAGE);
  else sessionStorage.setItem(KEY_STORAGE, key);
}

/** Listeners told when the runtime refuses the caller's credentials (401), to ask for a key. */
const unauthorizedListeners = new Set<(error: ApiError) => void>();
export function onUnauthorized(listener: (error: ApiError) => void): void {
  unauthorizedListeners.add(listener);
}

/** A fetch of the runtime's API with the key; an answer other than 2xx becomes an ApiError with Quarry's code. */
export async function call(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const key = storedApiKey();
  if (key !== null) headers.set('X-API-Key', key);
  // The browser's default cache mode: 'no-store' would make Chromium add `Cache-Control:
  // no-cache`, which the runtime reads as "bypass the results cache". API answers carry no
  // validators, so the browser stores none of them anyway.
  const response = await fetch(path, { ...init, headers, credentials: 'same-origin' });
  if (response.ok) return response;
  const error = await errorOf(response);
  if (response.status === 401) for (const listener of unauthorizedListeners) listener(error);
  throw error;
}

async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
    if (body.error?.code !== undefined) return new ApiError(response.status, body.error.code, body.error.message ?? text);
  } catch {
    // Not Quarry's JSON error shape: show the status and whatever text came.
  }
  return new ApiError(response.status, `HTTP_${response.status}`, text.trim() || response.statusText);
}

export async function getJson<T>(path: string): Promise<T> {
  return (await (await call(path, { headers: { accept: 'application/json' } })).json()) as T;
}

/** `POST /v1/sql` asking for the Arrow IPC stream; the bytes are kept for the Arrow download. */
export interface ArrowAnswer {
  readonly bytes: Uint8Array;
  /** `x-cache` as the runtime sent it (HIT, MISS, BYPASS…); null when the results cache is off. */
  readonly cache: string | null;
  readonly milliseconds: number;
}

export async function sqlArrow(sql: string, options: { bypassCache?: boolean; signal?: AbortSignal } = {}): Promise<ArrowAnswer> {
  const started = performance.now();
  const headers: Record<string, string> = { accept: 'application/vnd.apache.arrow.stream', 'content-type': 'text/plain; charset=utf-8' };
  if (options.bypassCache === true) headers['cache-control'] = 'no-cache';
  const response = await call('/v1/sql', { method: 'POST', body: sql, headers, ...(options.signal ? { signal: options.signal } : {}) });
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { bytes, cache: response.headers.get('x-cache'), milliseconds: performance.now() - started };
}
