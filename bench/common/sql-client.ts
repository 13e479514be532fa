import { Agent, request } from 'node:http';

/**
 * The benches' HTTP client: `POST /v1/sql` on one kept-alive connection with node:http, each
 * request `Cache-Control: no-cache` (the engine answers every time). node:http rather than
 * fetch: undici's per-request work, run cold after a long query had the cores, was ~2.5 ms of
 * a TPC-H Q6 round trip here against ~1 ms for node:http, and it was the client's, not the server's.
 */
export class SqlClient {
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 1 });
  readonly #url: URL;

  constructor(baseUrl: string, path = '/v1/sql') {
    this.#url = new URL(path, baseUrl);
  }

  /** One request's ms, the whole answer read; rejects unless it answered 200. */
  time(sql: string): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const started = performance.now();
      const outgoing = request(this.#url, { method: 'POST', agent: this.#agent, headers: { 'content-type': 'text/plain', accept: 'application/json', 'cache-control': 'no-cache' } }, (response) => {
        response.resume();
        response.on('end', () => (response.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`HTTP ${response.statusCode}`))));
      });
      outgoing.on('error', reject);
      outgoing.end(sql);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}
