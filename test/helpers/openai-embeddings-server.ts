import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible embeddings endpoint on loopback, standing in for a third-party service
 * (OpenAI, vLLM, Ollama, ...) that cannot run here: `POST /v1/embeddings` with a Bearer key
 * answers one vector per input, OpenAI's shape. Its vectors count a text's words per topic
 * (animals, vehicles, food, weather), so texts of one topic are near each other. It records
 * every request and how many were in flight at once. A wrong key is answered 401; the model
 * `short` answers one vector too few (a broken upstream).
 */
const TOPICS: readonly (readonly string[])[] = [
  ['cat', 'cats', 'dog', 'dogs', 'kitten', 'puppy', 'pet', 'pets', 'bark', 'barked', 'meow', 'fur'],
  ['car', 'cars', 'truck', 'trucks', 'bus', 'train', 'engine', 'wheel', 'road', 'drive'],
  ['pizza', 'bread', 'cheese', 'pasta', 'soup', 'bake', 'baked', 'oven', 'tomato', 'dinner'],
  ['rain', 'snow', 'sun', 'sunny', 'storm', 'cloud', 'wind', 'cold', 'warm'],
];

export function topicVector(text: string): number[] {
  const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
  return TOPICS.map((topic) => words.filter((word) => topic.includes(word)).length + 0.01);
}

export interface EmbeddingsRequestRecord {
  readonly model: string;
  readonly input: string[];
  readonly authorization: string | undefined;
  readonly encodingFormat: unknown;
}

export interface OpenAiEmbeddingsServer {
  readonly endpoint: string;
  readonly requests: EmbeddingsRequestRecord[];
  /** The most requests ever in flight at once. */
  maxInFlight(): number;
  close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startOpenAiEmbeddingsServer(options: { key: string; delayMs?: number }): Promise<OpenAiEmbeddingsServer> {
  const requests: EmbeddingsRequestRecord[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server: Server = createServer((request, response) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    void (async () => {
      const parsed = JSON.parse(await bodyOf(request)) as { model: string; input: string | string[]; encoding_format?: unknown };
      const input = [parsed.input].flat();
      requests.push({ model: parsed.model, input, authorization: request.headers.authorization, encodingFormat: parsed.encoding_format });
      // Held a while, so requests sent together overlap here unless something keeps them apart.
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      const send = (status: number, body: unknown) => {
        inFlight -= 1;
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      if (request.url !== '/v1/embeddings') return send(404, { error: { message: `no route ${request.url}` } });
      if (request.headers.authorization !== `Bearer ${options.key}`) return send(401, { error: { message: 'Incorrect API key provided' } });
      const vectors = input.map((text) => topicVector(text));
      if (parsed.model === 'short') vectors.pop();
      return send(200, { object: 'list', model: parsed.model, data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })), usage: { prompt_tokens: 0, total_tokens: 0 } });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}/v1`,
    requests,
    maxInFlight: () => maxInFlight,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
