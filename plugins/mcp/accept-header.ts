import type { IncomingMessage } from 'node:http';

const BOTH_ACCEPTED = 'application/json, text/event-stream';

export function acceptsEventStream(request: IncomingMessage): boolean {
  return /text\/event-stream/i.test(request.headers.accept ?? '');
}

/**
 * The SDK's transport refuses a POST whose Accept does not list both JSON and SSE, even when
 * it will answer JSON. Simple clients send `Accept: application/json` only; where Quarry
 * answers JSON anyway, widen their Accept so they are served instead of getting 406.
 */
export function acceptBoth(request: IncomingMessage): void {
  request.headers.accept = BOTH_ACCEPTED;
  // The SDK builds its Web Request from rawHeaders (name, value, name, value, ...).
  const raw = request.rawHeaders;
  for (let index = raw.length - 2; index >= 0; index -= 2) {
    if (raw[index]?.toLowerCase() === 'accept') raw.splice(index, 2);
  }
  raw.push('accept', BOTH_ACCEPTED);
}
