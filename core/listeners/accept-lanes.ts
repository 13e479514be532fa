import net from 'node:net';
import { loadNativeAddon } from '../native-addons.js';

interface ListenSocketAddon {
  duplicate(fd: number): number;
}

let addon: ListenSocketAddon | undefined;

/**
 * More than one connection accepted per turn of the event loop, for a listening server.
 *
 * libuv accepts one connection per turn for each listening handle (since 1.45). Under load a
 * turn of quarryd's loop lasts 10-60 ms (every query in flight advances in it), so fifty
 * clients connecting at once waited in line for up to a second before their first request was
 * even read, while the requests of clients already connected were answered in tens of
 * milliseconds. Each lane is a server listening on a duplicate descriptor of the same socket:
 * another libuv handle on the same accept queue, polled in the same turn; the kernel gives each
 * pending connection to one of them, which hands it to `server` as its own (`'connection'`,
 * the documented way to inject a connection into an HTTP or TLS server).
 *
 * Returns a function that closes the lanes (each closes its descriptor; the socket stays bound
 * until `server` closes too). A server without a descriptor (not listening on TCP) gets none.
 */
export function openAcceptLanes(server: net.Server, lanes: number): () => Promise<void> {
  const fd = (server as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (lanes <= 0 || typeof fd !== 'number' || fd < 0) return () => Promise.resolve();
  addon ??= loadNativeAddon<ListenSocketAddon>('listen_socket', 'without it quarryd accepts one connection per turn of its event loop');
  const opened: net.Server[] = [];
  for (let lane = 0; lane < lanes; lane++) {
    // As http.createServer makes its sockets: no Nagle delay on small responses.
    const extra = net.createServer({ noDelay: true });
    extra.on('connection', (socket) => server.emit('connection', socket));
    extra.listen({ fd: addon.duplicate(fd) });
    opened.push(extra);
  }
  return () => Promise.all(opened.map((extra) => new Promise<void>((resolve) => extra.close(() => resolve())))).then(() => undefined);
}
