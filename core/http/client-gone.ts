import type { ServerResponse } from 'node:http';

/**
 * Calls `onGone` once when the client goes away before the response is complete — also when
 * it went away before this was called. Under load a request can be parsed and handled after
 * its socket already closed: its 'close' event has fired by the time a handler listens, and a
 * listener alone would leave the query it starts open (holding an engine connection) for good.
 *
 * A pipelined request (sent on a connection before the answer to the one before it) has a
 * response with no socket yet: Node hands the socket over when the responses before it are
 * sent. The request's own socket tells whether that client left; a missing socket alone does
 * not (three pipelined queries were answered 200, 499, 499 when it did).
 */
export function whenClientGone(response: ServerResponse, onGone: () => void): void {
  let called = false;
  const socket = response.socket ?? response.req?.socket ?? null;
  const gone = () => {
    if (called || response.writableFinished) return;
    called = true;
    onGone();
  };
  response.once('close', gone);
  if (response.destroyed || socket === null || socket.destroyed) {
    gone();
    return;
  }
  if (response.socket === null) {
    // Queued behind earlier responses: their connection closing is this client leaving.
    socket.once('close', gone);
    response.once('finish', () => socket.off('close', gone));
  }
}
