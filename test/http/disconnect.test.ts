import net from 'node:net';
import test from 'ava';
import { withRuntime } from '../helpers/runtime.js';

/** Sends a request on a raw socket and closes it at once, before reading anything. */
function requestAndLeave(baseUrl: string, sql: string): Promise<void> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.end(`POST /v1/sql HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(sql)}\r\n\r\n${sql}`);
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 5);
    });
    socket.on('error', () => resolve());
  });
}

test('clients that leave before the answer streams do not leave queries open', async (t) => {
  await withRuntime(t, { manifest: 'datasets: []\n' }, async ({ runtime, baseUrl }) => {
    await Promise.all(Array.from({ length: 20 }, () => requestAndLeave(baseUrl, 'SELECT i FROM range(100000) t(i)')));
    const deadline = Date.now() + 5000;
    while (runtime.pipeline.activeCount > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    t.is(runtime.pipeline.activeCount, 0);
    const started = Date.now();
    await runtime.stop();
    t.true(Date.now() - started < 3000, 'shutdown does not wait for abandoned queries');
  });
});
