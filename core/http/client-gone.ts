import type { ServerResponse } from 'node:http';

/**
 * Calls `onGone` once when the client goes away before the response is complete — also when
 * it went away before this was called. Under load a request can be parsed and handled after
 * its socket already closed: its 'close' event has fired by the time a handler listens, and a
 * listener alone would leave the query it starts open (holding an engine connection) for good.
 */
export function whenClientGone(response: ServerResponse, onGone: () => void): void {
  let called = false;
  const gone = () => {
    if (called || response.writableFinished) return;
    called = true;
    onGone();
  };
  response.once('close', gone);
  if (response.destroyed || response.socket === null || response.socket.destroyed) gone();
}
