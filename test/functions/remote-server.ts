import { Worker } from 'node:worker_threads';

/**
 * A fake remote-function endpoint in a worker thread, so that it answers whatever the
 * runtime's thread is doing (a runtime that blocked its event loop on a remote call must
 * show up as a failing test, not as a hung one). Paths choose the behaviour:
 *   /double        {"values": [row.x * 2, ...]}
 *   /short         one value fewer than rows
 *   /slow          answers after 2 s
 *   /big           a response of about 64 KiB
 *   /held          held until GET /release, then {"values": [row.x + 1, ...]}
 * Tool paths get one JSON object of arguments per POST (tools called from SQL, per row):
 *   /tool/echo     answers {"x": n} with the JSON number n * 10 after (20 - n % 20) * 5 ms,
 *                  so later rows often finish first (the caller must keep row order)
 *   /tool/text     answers plain text "hello <name>" (not JSON)
 *   /tool/fail     answers 500 "tool broke"
 *   /tool/slow     answers after 2 s
 * GET /log returns what every POST received (path, authorization, row count);
 * GET /held answers how many POSTs to /held are being held; GET /release answers them;
 * GET /tool-stats returns { calls, maxInFlight } of the tool paths.
 */
const SOURCE = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
const log = [];
const toolStats = { calls: 0, inFlight: 0, maxInFlight: 0 };
let held = [];
function answerTool(request, response, args) {
  toolStats.calls++;
  toolStats.inFlight++;
  toolStats.maxInFlight = Math.max(toolStats.maxInFlight, toolStats.inFlight);
  const finish = (status, body, type) => {
    toolStats.inFlight--;
    response.statusCode = status;
    response.setHeader('content-type', type);
    response.end(body);
  };
  if (request.url === '/tool/echo') setTimeout(() => finish(200, JSON.stringify(args.x * 10), 'application/json'), (20 - (args.x % 20)) * 5);
  else if (request.url === '/tool/text') finish(200, 'hello ' + args.name, 'text/plain');
  else if (request.url === '/tool/fail') finish(500, 'tool broke', 'text/plain');
  else if (request.url === '/tool/slow') setTimeout(() => finish(200, '1', 'application/json'), 2000);
  else finish(404, 'no such tool', 'text/plain');
}
const server = http.createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/held') { response.end(String(held.length)); return; }
  if (request.method === 'GET' && request.url === '/release') { const released = held; held = []; released.forEach((answer) => answer()); response.end(String(released.length)); return; }
  if (request.method === 'GET') { response.end(JSON.stringify(request.url === '/tool-stats' ? { calls: toolStats.calls, maxInFlight: toolStats.maxInFlight } : log)); return; }
  let text = '';
  request.on('data', (chunk) => (text += chunk));
  request.on('end', () => {
    if (request.url.startsWith('/tool/')) { answerTool(request, response, JSON.parse(text)); return; }
    const rows = JSON.parse(text).rows;
    log.push({ path: request.url, authorization: request.headers.authorization ?? null, rows: rows.length });
    const send = (body) => { response.setHeader('content-type', 'application/json'); response.end(JSON.stringify(body)); };
    if (request.url === '/double') send({ values: rows.map((row) => (row.x === null ? null : row.x * 2)) });
    else if (request.url === '/short') send({ values: rows.slice(1).map(() => 1) });
    else if (request.url === '/slow') setTimeout(() => send({ values: rows.map(() => 1) }), 2000);
    else if (request.url === '/held') held.push(() => send({ values: rows.map((row) => row.x + 1) }));
    else if (request.url === '/big') send({ values: rows.map(() => 1), padding: 'x'.repeat(65536) });
    else { response.statusCode = 404; response.end('no such path'); }
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

export interface RemoteServer {
  url: string;
  log(): Promise<Array<{ path: string; authorization: string | null; rows: number }>>;
  toolStats(): Promise<{ calls: number; maxInFlight: number }>;
  /** How many POSTs to /held are waiting. */
  held(): Promise<number>;
  /** Answers every held POST; how many there were. */
  release(): Promise<number>;
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
    toolStats: async () => (await fetch(`${url}/tool-stats`)).json() as never,
    held: async () => Number(await (await fetch(`${url}/held`)).text()),
    release: async () => Number(await (await fetch(`${url}/release`)).text()),
    close: async () => {
      await worker.terminate();
    },
  };
}
