import http from 'node:http';

// One kept-alive connection per server: sequential requests, no connection set-up in the figures.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One POST /v1/sql on a kept-alive connection: milliseconds and the x-cache header. */
export function timedRequest(baseUrl: string, sql: string, extraHeaders: Record<string, string> = {}): Promise<{ ms: number; cache: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const headers = { accept: 'application/json', 'content-type': 'text/plain', ...extraHeaders };
    const request = http.request(`${baseUrl}/v1/sql`, { method: 'POST', agent, headers }, (response) => {
      response.resume();
      response.on('end', () => resolve({ ms: performance.now() - started, cache: String(response.headers['x-cache']) }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(sql);
  });
}

/** Milliseconds of one request that must be a HIT. */
export async function hitLatency(baseUrl: string, sql: string, extraHeaders: Record<string, string> = {}): Promise<number> {
  const { ms, cache } = await timedRequest(baseUrl, sql, extraHeaders);
  if (cache !== 'HIT') throw new Error(`expected a HIT, got ${cache}: ${sql}`);
  return ms;
}

export function closeAgent(): void {
  agent.destroy();
}
