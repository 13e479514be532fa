import { writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { loadManifest } from '../../core/manifest/load.js';
import { taskHistory } from '../../plugins/task-history/recorder.js';
import { Runtime } from '../../core/runtime.js';
import { createLogger } from '../../core/log.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { startOpenAiEmbeddingsServer, topicVector } from '../helpers/openai-embeddings-server.js';
import { writeManifestDirectory } from '../helpers/runtime.js';
import { NOTES_CSV, search, startIndexedRuntime, untilIndexGeneration } from '../helpers/search-fixtures.js';

/**
 * Vector search with an OpenAI-compatible embeddings endpoint. The endpoint is a loopback
 * server of the test (test/helpers/openai-embeddings-server.ts) standing in for the
 * third-party service, which cannot run here; the runtime's side is real: its outbound client,
 * rate control, the vectors in the engine, the embeddings cache.
 */
const KEY = 'sk-test-embeddings';

const manifest = (endpoint: string, model = 'topic-embed', extra = '') => `
version: v2
kind: Spicepod
name: search-openai
secrets:
  - from: env
    name: env
    params:
      file_path: embed.env
embeddings:
  - name: remote
    from: openai:${model}
    params:
      endpoint: ${endpoint}
      openai_api_key: \${ secrets:EMBED_KEY }
      batch_size: 2
datasets:
  - from: file:data/notes.csv
    name: notes
    acceleration:
      enabled: true
      primary_key: id
    columns:
      - name: body
        embeddings:
          - from: remote
runtime:
  caching:
    embeddings:
      item_ttl: 10m
  params:
    http_max_concurrent_requests: 1
${extra}`;

test('vectors come from the endpoint in batches through the outbound client; queries are embedded once, then cached', async (t) => {
  const server = await startOpenAiEmbeddingsServer({ key: KEY, delayMs: 5 });
  const context = await startIndexedRuntime({ manifest: manifest(server.endpoint), files: { 'data/notes.csv': NOTES_CSV, 'embed.env': `EMBED_KEY=${KEY}\n` }});
  try {
    const loadRequests = server.requests.slice(1); // the first is start-up's probe of the model
    t.true(server.requests.every((request) => request.model === 'topic-embed' && request.authorization === `Bearer ${KEY}` && request.encodingFormat === 'float'));
    t.deepEqual(loadRequests.map((request) => request.input.length), [2, 2, 1], 'five texts in batches of batch_size 2');
    t.deepEqual(loadRequests.flatMap((request) => request.input).sort(), NOTES_CSV.trim().split('\n').slice(1).map((line) => line.split(',')[2]!).sort());

    const answer = await search(context.baseUrl, { text: 'a kitten', limit: 1 });
    t.is(answer.status, 200, JSON.stringify(answer.body));
    t.deepEqual(answer.body.results[0]!.primary_key, { id: 1 });
    // The engine's score is the cosine of the endpoint's vectors.
    const [query, cat] = [topicVector('a kitten'), topicVector('My cat has soft fur and likes to meow')];
    const cosine = query.reduce((sum, value, index) => sum + value * cat[index]!, 0) / (Math.hypot(...query) * Math.hypot(...cat));
    t.true(Math.abs(answer.body.results[0]!.score - cosine) < 1e-5, `${answer.body.results[0]!.score} vs ${cosine}`);

    const before = server.requests.length;
    const again = await context.sql(`SELECT id FROM vector_search('notes', 'a kitten', 1)`);
    t.deepEqual(await again.json(), [{ id: 1 }]);
    t.is(server.requests.length, before, 'the query vector came from the embeddings cache');
    t.is(context.runtime.metrics.value('embeddings_cache_hits'), 1);

    // Concurrent searches of new texts: runtime.params.http_max_concurrent_requests holds them to one request at a time.
    const texts = ['cold snow', 'hot soup', 'fast train', 'loud dog'];
    const answers = await Promise.all(texts.map((text) => search(context.baseUrl, { text, limit: 1 })));
    t.deepEqual(answers.map((each) => each.body.results[0]!.primary_key['id']), [4, 3, 2, 1]);
    t.is(server.maxInFlight(), 1, 'rate control applies to the embeddings endpoint');

    // A refresh rebuilds the index: only the new text is embedded; the removed row's vector goes.
    const requestsBefore = server.requests.length;
    writeFileSync(path.join(context.directory, 'data/notes.csv'), NOTES_CSV.replace('4,Forecast,Rain and wind all day with a cold storm\n', '') + '7,Bakery,Fresh bread from the oven\n');
    const refreshed = await fetch(`${context.baseUrl}/v1/datasets/notes/acceleration/refresh`, { method: 'POST' });
    t.true(refreshed.ok, await refreshed.text());
    await untilIndexGeneration(context.baseUrl, 'notes', 2);
    t.deepEqual(server.requests.slice(requestsBefore).flatMap((request) => request.input), ['Fresh bread from the oven']);
    const bread = await search(context.baseUrl, { text: 'bread', limit: 1 });
    t.deepEqual(bread.body.results[0]!.primary_key, { id: 7 });
    const vectors = (await (await context.sql(`SELECT count(*) AS n FROM vector_search('notes', 'storm', 100)`)).json()) as Array<{ n: number }>;
    t.deepEqual(vectors, [{ n: 5 }], 'five rows, the removed one not among them');

    // captured_context defaults to truncated: a long query text is cut in task history.
    const long = Array.from({ length: 1_200 }, (_, index) => (index % 2 === 0 ? 'snow' : 'rain')).join(' ');
    t.is((await search(context.baseUrl, { text: long, limit: 1 })).status, 200);
    await taskHistory(context.runtime.hooks)!.flush();
    const history = (await (await context.sql(`SELECT task, input FROM runtime.task_history WHERE task IN ('search', 'text_embed') AND input LIKE 'snow rain%'`)).json()) as Array<{ task: string; input: string }>;
    t.deepEqual(history.map((row) => row.task).sort(), ['search', 'text_embed']);
    for (const row of history) t.true(row.input.endsWith('...[truncated]') && row.input.length < long.length, `${row.task}: ${row.input.length} characters`);
    const inner = (await (await context.sql(`SELECT count(*) AS n FROM runtime.task_history WHERE task = 'sql_query' AND input LIKE '%snow rain%'`)).json()) as Array<{ n: number }>;
    t.deepEqual(inner, [{ n: 0 }], 'the search\'s own SQL carries the text as a parameter, not in its recorded input');
  } finally {
    await context.runtime.stop();
    await server.close();
  }
});

test('a model the endpoint refuses or answers wrongly fails start-up with EMBEDDING_MODEL_FAILED naming it', async (t) => {
  const server = await startOpenAiEmbeddingsServer({ key: KEY });
  try {
    for (const [key, model, expected] of [['sk-wrong', 'topic-embed', /answered 401/], [KEY, 'short', /answered 0 embeddings for 1 inputs/]] as const) {
      const directory = writeManifestDirectory({ manifest: manifest(server.endpoint, model), files: { 'data/notes.csv': NOTES_CSV, 'embed.env': `EMBED_KEY=${key}\n` } });
      const loaded = await loadManifest({ path: directory, bundle: defaultPlugins() });
      const runtime = new Runtime({ manifest: loaded.manifest, source: loaded.source, plugins: loaded.plugins, log: createLogger({ level: 'info', sink: () => undefined }), http: '127.0.0.1:0', flight: false });
      const error = await t.throwsAsync(runtime.start());
      t.regex(error!.message, /embeddings model remote/);
      t.regex(error!.message, expected);
      t.is((error as { code?: string }).code, 'EMBEDDING_MODEL_FAILED');
      await runtime.stop().catch(() => undefined);
    }
  } finally {
    await server.close();
  }
});

test('a client that leaves mid-search: the search is recorded as failed, nothing is cached, the runtime answers the next one', async (t) => {
  const server = await startOpenAiEmbeddingsServer({ key: KEY, delayMs: 300 });
  const context = await startIndexedRuntime({ manifest: manifest(server.endpoint), files: { 'data/notes.csv': NOTES_CSV, 'embed.env': `EMBED_KEY=${KEY}\n` }});
  try {
    const before = server.requests.length;
    const leaving = new AbortController();
    const gone = fetch(`${context.baseUrl}/v1/search`, { method: 'POST', body: JSON.stringify({ text: 'a cold storm', limit: 1 }), signal: leaving.signal }).catch((error: unknown) => error);
    // Leave once the query text reached the model (the search is then mid-way, in the engine).
    while (server.requests.length === before) await new Promise((resolve) => setImmediate(resolve));
    leaving.abort();
    t.true((await gone) instanceof Error);
    const next = await search(context.baseUrl, { text: 'a fast train', limit: 1 });
    t.is(next.status, 200, JSON.stringify(next.body));
    t.deepEqual(next.body.results[0]!.primary_key, { id: 2 });
    let rows: Array<{ error_message: string | null }> = [];
    while (rows.length === 0) {
      await taskHistory(context.runtime.hooks)!.flush();
      rows = (await (await context.sql(`SELECT error_message FROM runtime.task_history WHERE task = 'search' AND input = 'a cold storm'`)).json()) as typeof rows;
    }
    t.regex(rows[0]!.error_message ?? '', /cancel/i, 'the search that lost its client is a failed task');
    const again = await search(context.baseUrl, { text: 'a cold storm', limit: 1 });
    t.is(again.headers.get('search-results-cache-status'), 'MISS', 'nothing of the abandoned search was cached');
  } finally {
    await context.runtime.stop();
    await server.close();
  }
});
