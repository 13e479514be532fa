import http from 'node:http';
import net from 'node:net';
import test from 'ava';
import { whenClientGone } from '../../core/http/client-gone.js';

/** A server whose handler starts listening only after `delay` resolves; reports whether `onGone` ran. */
async function serverListeningLate(delay: (request: http.IncomingMessage, response: http.ServerResponse) => Promise<void>) {
  const outcomes: Array<Promise<boolean>> = [];
  const server = http.createServer((request, response) => {
    outcomes.push(
      (async () => {
        await delay(request, response);
        return new Promise<boolean>((resolve) => {
          whenClientGone(response, () => resolve(true));
          setTimeout(() => resolve(false), 2_000);
        });
      })(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return { server, port, outcomes };
}

test('a client that left before the handler listened is reported at once', async (t) => {
  const { server, port, outcomes } = await serverListeningLate(
    (request) => new Promise((resolve) => (request.socket.destroyed ? resolve() : request.socket.once('close', () => resolve()))),
  );
  try {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write('POST /v1/sql HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\n\r\nSELECT 1');
      setTimeout(() => socket.destroy(), 50);
    });
    while (outcomes.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    t.true(await outcomes[0]!, 'onGone ran although the close came before the listener');
  } finally {
    server.close();
  }
});

test('a client that stays until the response is complete is never reported', async (t) => {
  const { server, port, outcomes } = await serverListeningLate(async () => undefined);
  try {
    const answered = new Promise<void>((resolve) => {
      server.once('request', (_request, response: http.ServerResponse) => setTimeout(() => response.end('ok', () => resolve()), 20));
    });
    const response = await fetch(`http://127.0.0.1:${port}/`);
    t.is(await response.text(), 'ok');
    await answered;
    t.false(await outcomes[0]!, 'a finished response is not a client gone');
  } finally {
    server.close();
  }
});
