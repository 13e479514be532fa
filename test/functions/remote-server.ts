import { Worker } from 'node:worker_threads';

/**
 * A fake remote-function endpoint in a worker thread: remote UDF calls block the main
 * thread while they wait (see plugins/functions/sync-http.ts), so a server on the main
 * thread could never answer. Paths choose the behaviour:
 *   /double        {"values": [row.x * 2, ...]}
 *   /short         one value fewer than rows
 *   /slow          answers after 2 s
 *   /big           a response of about 64 KiB
 * GET /log returns what every POST received (path, authorization, row count).
 */
const SOURCE = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
const log = [];
const server = http.createServer((request, response) => {
  if (request.method === 'GET') { response.end(JSON.stringify(log)); return; }
  let text = '';
  request.on('data', (chunk) => (text += chunk));
  request.on('end', () => {
    const rows = JSON.parse(text).rows;
    log.push({ path: request.url, authorization: request.headers.authorization ?? null, rows: rows.length });
    const send = (body) => { response.setHeader('content-type', 'application/json'); response.end(JSON.stringify(body)); };
    if (request.url === '/double') send({ values: rows.map((row) => (row.x === null ? null : row.x * 2)) });
    else if (request.url === '/short') send({ values: rows.slice(1).map(() => 1) });
    else if (request.url === '/slow') setTimeout(() => send({ values: rows.map(() => 1) }), 2000);
    else if (request.url === '/big') send({ values: rows.map(() => 1), padding: 'x'.repeat(65536) });
    else { response.statusCode = 404; response.end('no such path'); }
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

export interface RemoteServer {
  url: string;
  log(): Promise<Array<{ path: string; authorization: string | null; rows: number }>>;
  close(): Promise<void>;
}

export async function startRemoteServer(): Promise<RemoteServer> {
  const worker = new Worker(SOURCE, { eval: true });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    log: async () => (await fetch(`${url}/log`)).json() as never,
    close: async () => {
      await worker.terminate();
    },
  };
}
