import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A minimal S3 endpoint (path-style GET/PUT/DELETE of objects) that honours conditional
 * writes: `If-None-Match: *` and `If-Match: <etag>` answer 412 when they do not hold (If-Match
 * on a missing key: 404, as S3 and moto answer). s3rver,
 * the S3 server that runs here, ignores both (stack-notes §9) and no S3-compatible server that
 * does is installable on these machines, so the compare-and-swap semantics are checked
 * against this. One process, one thread: each request is checked and applied atomically.
 */
export async function startConditionalS3(): Promise<{ endpoint: string; objects: Map<string, Buffer>; puts: () => number; preconditionFailures: () => number; close(): Promise<void> }> {
  const objects = new Map<string, Buffer>();
  let puts = 0;
  let failures = 0;
  const etagOf = (body: Buffer) => `"${createHash('md5').update(body).digest('hex')}"`;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const key = decodeURIComponent(new URL(request.url ?? '/', 'http://s3').pathname);
      const existing = objects.get(key);
      const xmlError = (status: number, code: string) => {
        response.writeHead(status, { 'content-type': 'application/xml' }).end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message><Key>${key}</Key></Error>`);
      };
      if (request.method === 'GET' || request.method === 'HEAD') {
        if (!existing) return xmlError(404, 'NoSuchKey');
        response.writeHead(200, { etag: etagOf(existing), 'content-length': existing.length, 'content-type': 'application/octet-stream' });
        response.end(request.method === 'GET' ? existing : undefined);
        return;
      }
      if (request.method === 'PUT') {
        puts++;
        const ifNoneMatch = request.headers['if-none-match'];
        const ifMatch = request.headers['if-match'];
        // As S3 answers: If-Match on a key that does not exist is 404 NoSuchKey, not 412.
        if (ifMatch !== undefined && !existing) {
          failures++;
          return xmlError(404, 'NoSuchKey');
        }
        if ((ifNoneMatch === '*' && existing) || (ifMatch !== undefined && etagOf(existing!) !== ifMatch)) {
          failures++;
          return xmlError(412, 'PreconditionFailed');
        }
        const body = Buffer.concat(chunks);
        objects.set(key, body);
        response.writeHead(200, { etag: etagOf(body) }).end();
        return;
      }
      if (request.method === 'DELETE') {
        objects.delete(key);
        response.writeHead(204).end();
        return;
      }
      xmlError(405, 'MethodNotAllowed');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    objects,
    puts: () => puts,
    preconditionFailures: () => failures,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
