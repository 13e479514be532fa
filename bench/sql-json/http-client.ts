/**
 * The sql-json benchmark's HTTP client, in a process of its own: POSTs the query and
 * counts the response bytes with node:http, nothing else. Its own process keeps it thin:
 * the benchmark's in-process DuckDB baselines (hundreds of MB of buffers, DuckDB threads)
 * would otherwise load the client's garbage collector and slow its reading, which then
 * back-pressures the server and turns a client cost into the server's figure.
 *
 * Driven over IPC by run.ts: receives `{ url, sql }`, answers `{ ms, bytes }` or `{ error }`.
 */
import http from 'node:http';

interface Request {
  readonly url: string;
  readonly sql: string;
}

function post({ url, sql }: Request): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers: { accept: 'application/json', 'content-type': 'text/plain' } }, (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`HTTP ${response.statusCode}`));
        response.resume();
        return;
      }
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
      response.on('end', () => resolve({ ms: performance.now() - started, bytes }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(sql);
  });
}

process.on('message', (message: Request) => {
  post(message).then(
    (result) => process.send!(result),
    (error: unknown) => process.send!({ error: String(error) }),
  );
});
