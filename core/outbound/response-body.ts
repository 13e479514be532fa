import { open } from 'node:fs/promises';
import { QuarryError } from '../errors/quarry-error.js';

/**
 * Reads a response body chunk by chunk, into memory or into a file, failing as soon as it
 * exceeds `limit` bytes (a misbehaving upstream cannot fill memory or disk).
 */
export async function readBody(
  response: Response,
  options: { limit: number; destination: string | undefined; url: URL },
): Promise<{ body: Buffer | undefined; bytes: number }> {
  const declared = Number(response.headers.get('content-length') ?? 'NaN');
  if (Number.isFinite(declared) && declared > options.limit) throw tooLarge(options.url, options.limit);
  const file = options.destination === undefined ? undefined : await open(options.destination, 'w');
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    if (response.body) {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        bytes += chunk.byteLength;
        if (bytes > options.limit) throw tooLarge(options.url, options.limit);
        if (file) await file.write(chunk);
        else chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      }
    }
  } finally {
    await file?.close();
  }
  return { body: file ? undefined : Buffer.concat(chunks, bytes), bytes };
}

function tooLarge(url: URL, limit: number): QuarryError {
  return new QuarryError('UPSTREAM_RESPONSE_TOO_LARGE', `the response of ${url.origin}${url.pathname} is larger than ${limit} bytes; it was not read further`, {
    details: { origin: url.origin, limit },
  });
}
