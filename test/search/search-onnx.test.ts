import test from 'ava';
import { STOP_WORDS } from '../../plugins/search/stop-words.js';
import { taskHistory } from '../../plugins/task-history/recorder.js';
import type { TestRuntime } from '../helpers/runtime.js';
import { NOTES_CSV, indexGeneration, search, startIndexedRuntime, tinyEmbeddingModel, untilIndexGeneration } from '../helpers/search-fixtures.js';

/**
 * Search over a real engine with a real ONNX model (built by the onnx Python package): the
 * tiny model puts texts of one topic near each other, so the expected ranks are known.
 */
const ARTICLE = [
  'The weather report said rain and snow with a cold wind.',
  'Later the sun came out and it was warm.',
  // Chunked at 12 words with 2 of overlap, the cat sentence is a chunk of its own.
  'Meanwhile my kitten and the puppy played with the dog on the road.',
].join(' ');

const ARTICLES_CSV = `id,body\n1,"${ARTICLE}"\n2,"The train and the bus share the road with every car and truck"\n`;

const FAQ_CSV = `question,answer
q1,pizza pizza pizza dinner
q2,the oven is hot for the pizza and the bread
q3,our dog likes the bread
q4,the truck was loud
`;

const manifest = (modelPath: string) => `
version: v2
kind: Spicepod
name: search-onnx
embeddings:
  - name: tiny
    from: file:${modelPath}
datasets:
  - from: file:data/notes.csv
    name: notes
    access: read_write
    acceleration:
      enabled: true
      primary_key: id
    columns:
      - name: body
        full_text_search:
          enabled: true
        embeddings:
          - from: tiny
  - from: file:data/articles.csv
    name: articles
    acceleration:
      enabled: true
    embeddings:
      - column: body
        use: tiny
        column_pk: [id]
        chunking:
          enabled: true
          target_chunk_size: 12
          overlap_size: 2
  - from: file:data/faq.csv
    name: faq
    acceleration:
      enabled: true
    columns:
      - name: answer
        full_text_search:
          enabled: true
          row_id: question
runtime:
  caching:
    search_results:
      item_ttl: 10m
    embeddings:
      item_ttl: 10m
  task_history:
    captured_output: truncated
    captured_context: full
`;

let context: TestRuntime | undefined;

test.before(async (t) => {
  const model = await tinyEmbeddingModel(t);
  if (!model) return;
  context = await startIndexedRuntime({ manifest: manifest(model.model), files: { 'data/notes.csv': NOTES_CSV, 'data/articles.csv': ARTICLES_CSV, 'data/faq.csv': FAQ_CSV } });
});

test.after.always(async () => {
  await context?.runtime.stop();
});

async function rows(sql: string): Promise<Array<Record<string, unknown>>> {
  const response = await context!.sql(sql);
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${response.status} ${body}`);
  return JSON.parse(body) as Array<Record<string, unknown>>;
}

/** BM25 as the textbook writes it (k1 1.2, b 0.75, stop words left out), over the FAQ answers: the reference the engine's scores must equal. */
function referenceBm25(documents: string[], query: string): number[] {
  const tokens = (text: string): string[] => (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => !STOP_WORDS.includes(word));
  const docs = documents.map(tokens);
  const average = docs.reduce((sum, doc) => sum + doc.length, 0) / docs.length;
  const terms = [...new Set(tokens(query))];
  return docs.map((doc) =>
    terms.reduce((score, term) => {
      const df = docs.filter((other) => other.includes(term)).length;
      const tf = doc.filter((word) => word === term).length;
      if (tf === 0) return score;
      const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
      return score + (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * doc.length) / average));
    }, 0),
  );
}

test.serial('text_search ranks by BM25: scores equal the textbook formula over the same texts', async (t) => {
  if (!context) return t.pass();
  const answers = FAQ_CSV.trim().split('\n').slice(1).map((line) => line.split(',')[1]!);
  const expected = referenceBm25(answers, 'Pizza bread');
  const found = await rows(`SELECT question, score FROM text_search('faq', 'Pizza bread', 10)`);
  const order = expected.map((score, index) => ({ question: `q${index + 1}`, score })).filter((entry) => entry.score > 0).sort((a, b) => b.score - a.score);
  t.deepEqual(order.map((entry) => entry.question).sort(), ['q1', 'q2', 'q3'], 'the reference: q4 has neither word');
  t.deepEqual(found.map((row) => row['question']), order.map((entry) => entry.question));
  for (const row of found) {
    const index = Number(String(row['question']).slice(1)) - 1;
    t.true(Math.abs(Number(row['score']) - expected[index]!) < 1e-9, `${String(row['question'])}: ${String(row['score'])} vs ${expected[index]}`);
  }
  t.deepEqual(await rows(`SELECT * FROM text_search('faq', 'zebra', 10)`), [], 'no word in common: no match');
});

test.serial('vector_search finds texts by meaning with the ONNX model; chunks are searched one by one', async (t) => {
  if (!context) return t.pass();
  const notes = await rows(`SELECT id, title, score FROM vector_search('notes', 'kitten', 2)`);
  t.deepEqual(notes.map((row) => row['id']), [1, 5], 'the cat first, then the dogs: both about animals');
  t.true(Number(notes[0]!['score']) > 0.8 && Number(notes[0]!['score']) <= 1.0001, String(notes[0]!['score']));
  const vehicles = await rows(`SELECT id FROM vector_search('notes', 'a fast car on the road', 1)`);
  t.deepEqual(vehicles, [{ id: 2 }]);
  // The article about weather has one chunk about pets: the pets query finds it through that chunk.
  const answer = await search(context.baseUrl, { text: 'kitten', datasets: ['articles'], limit: 2 });
  t.is(answer.status, 200, JSON.stringify(answer.body));
  t.deepEqual(answer.body.results[0]!.primary_key, { id: 1 });
  const chunk = answer.body.results[0]!.matches['body']![0]!;
  t.true(chunk.includes('kitten') && !chunk.includes('weather report'), chunk);
  t.true(chunk.split(/\s+/).length <= 12, chunk);
});

test.serial('POST /v1/search: Spice\'s shape, hybrid ranking on a dataset with both indexes, additional columns and where', async (t) => {
  if (!context) return t.pass();
  const answer = await search(context.baseUrl, { text: 'loud truck', datasets: ['notes'], limit: 2, additional_columns: ['title'] });
  t.is(answer.status, 200, JSON.stringify(answer.body));
  const [first] = answer.body.results;
  t.deepEqual(first, { matches: { body: ['The big red truck has a loud engine'] }, dataset: 'notes', primary_key: { id: 2 }, data: { title: 'Garage' }, score: first!.score, _score: first!.score });
  // First in both lists: 1/(60+1) twice.
  t.true(Math.abs(first!.score - 2 / 61) < 1e-12, String(first!.score));
  t.is(typeof answer.body.duration_ms, 'number');
  const filtered = await search(context.baseUrl, { text: 'loud truck', datasets: ['notes'], limit: 5, where: 'id <> 2' });
  t.false(filtered.body.results.some((result) => result.primary_key['id'] === 2), JSON.stringify(filtered.body));
  t.true(filtered.body.results.length > 0);
  // Across datasets each one's best match comes first (reciprocal rank): no method's scale wins.
  const all = await search(context.baseUrl, { text: 'pizza' });
  t.is(all.body.results.length, 3, 'default limit 3');
  t.deepEqual(all.body.results.map((result) => result.dataset).sort(), ['articles', 'faq', 'notes']);
  t.deepEqual(all.body.results.find((result) => result.dataset === 'faq')!.primary_key, { question: 'q1' });
  t.deepEqual(all.body.results.find((result) => result.dataset === 'notes')!.primary_key, { id: 3 });
});

test.serial('repeats are search_results cache hits; query embeddings are embeddings cache hits', async (t) => {
  if (!context) return t.pass();
  const metric = (name: string) => context!.runtime.metrics.value(name) ?? 0;
  const body = { text: 'storm and snow', datasets: ['notes'], limit: 1 };
  const hitsBefore = metric('search_results_cache_hits');
  const embeddingHitsBefore = metric('embeddings_cache_hits');
  const first = await search(context.baseUrl, body);
  t.is(first.headers.get('search-results-cache-status'), 'MISS');
  const second = await search(context.baseUrl, body);
  t.is(second.headers.get('search-results-cache-status'), 'HIT');
  t.deepEqual(second.body.results, first.body.results);
  t.is(metric('search_results_cache_hits'), hitsBefore + 1);
  // The same text searched another way (SQL) embeds nothing new: the vector comes from the cache.
  await rows(`SELECT id FROM vector_search('notes', 'storm and snow', 1)`);
  t.is(metric('embeddings_cache_hits'), embeddingHitsBefore + 1);
  const bypass = await search(context.baseUrl, body, { 'cache-control': 'no-cache' });
  t.is(bypass.headers.get('search-results-cache-status'), 'BYPASS');
});

test.serial('a write is searchable once the index catches up, and the cached answer is dropped', async (t) => {
  if (!context) return t.pass();
  const body = { text: 'pasta soup', datasets: ['notes'], limit: 1 };
  const before = await search(context.baseUrl, body);
  t.not(before.body.results[0]?.primary_key['id'], 6);
  const generation = await indexGeneration(context.baseUrl, 'notes');
  const inserted = await context.sql(`INSERT INTO notes VALUES (6, 'Dinner', 'Pasta and soup for dinner')`);
  t.is(inserted.status, 200, await inserted.text());
  await untilIndexGeneration(context.baseUrl, 'notes', generation + 1);
  const after = await search(context.baseUrl, body);
  t.is(after.headers.get('search-results-cache-status'), 'MISS', 'the write dropped the cached answer');
  t.deepEqual(after.body.results[0]?.primary_key, { id: 6 });
  t.deepEqual(after.body.results[0]?.matches, { body: ['Pasta and soup for dinner'] });
});

test.serial('task history: a search row with its text and output, text_embed rows for computed query vectors', async (t) => {
  if (!context) return t.pass();
  await search(context.baseUrl, { text: 'bread in the oven', datasets: ['faq'], limit: 1 });
  await rows(`SELECT * FROM vector_search('notes', 'cold rain today', 1)`);
  await taskHistory(context.runtime.hooks)!.flush();
  const history = await rows(`SELECT task, input, captured_output, labels FROM runtime.task_history WHERE task IN ('search', 'text_embed') ORDER BY start_time`);
  const searchRow = history.find((row) => row['task'] === 'search' && row['input'] === 'bread in the oven');
  t.truthy(searchRow, JSON.stringify(history));
  t.true(String(searchRow!['captured_output']).includes('"primary_key":{"question":"q2"}'), String(searchRow!['captured_output']));
  t.true(history.some((row) => row['task'] === 'text_embed' && row['input'] === 'cold rain today'), JSON.stringify(history));
});

test.serial('quarry_embed from SQL: each distinct text of a chunk embedded once, in batches; an oversized text refused', async (t) => {
  if (!context) return t.pass();
  const before = context.runtime.metrics.value('embeddings_cache_misses') ?? 0;
  const counted = await rows(`SELECT count(DISTINCT v) AS vectors, count(*) AS n FROM (SELECT quarry_embed('tiny', list_element(['cat', 'dog', 'truck', 'bus', 'pizza', 'bread', 'rain', 'snow'], (i % 8)::INTEGER + 1)) AS v FROM range(5000) t(i))`);
  t.deepEqual(counted, [{ vectors: 8, n: 5000 }]);
  t.true((context.runtime.metrics.value('embeddings_cache_misses') ?? 0) - before <= 8 * 3, 'at most each distinct text once per engine chunk');
  const long = await context.sql(`SELECT quarry_embed('tiny', repeat('a ', 20000))`);
  t.is(long.status, 400, await long.clone().text());
  t.regex(await long.text(), /at most 10000 are embedded at query time/);
  const unknown = await context.sql(`SELECT quarry_embed('nope', 'x')`);
  t.regex(await unknown.text(), /no embeddings model named nope; declared: tiny/);
});

test.serial('GET /v1/embeddings lists the models; POST /v1/embeddings answers OpenAI\'s shape with the model\'s vectors', async (t) => {
  if (!context) return t.pass();
  const listed = await fetch(`${context.baseUrl}/v1/embeddings`);
  t.deepEqual(await listed.json(), [{ name: 'tiny', from: `file:${(await tinyEmbeddingModel(t))!.model}`, dimensions: 8 }]);
  const created = await fetch(`${context.baseUrl}/v1/embeddings`, { method: 'POST', body: JSON.stringify({ model: 'tiny', input: ['a kitten', 'a truck'] }) });
  t.is(created.status, 200);
  const body = (await created.json()) as { object: string; model: string; data: Array<{ object: string; index: number; embedding: number[] }> };
  t.is(body.object, 'list');
  t.deepEqual(body.data.map((item) => [item.object, item.index, item.embedding.length]), [['embedding', 0, 8], ['embedding', 1, 8]]);
  const [kitten, truck] = body.data.map((item) => item.embedding);
  t.true(Math.abs(Math.hypot(...kitten!) - 1) < 1e-5, 'unit length');
  // The same vector vector_search scores with: the cat note's score is its inner product with the kitten vector.
  const cat = await rows(`SELECT score FROM vector_search('notes', 'a kitten', 1)`);
  t.true(Number(cat[0]!['score']) > kitten!.reduce((sum, value, index) => sum + value * truck![index]!, 0));
  const refused = await fetch(`${context.baseUrl}/v1/embeddings`, { method: 'POST', body: JSON.stringify({ model: 'nope', input: 'x' }) });
  t.is(refused.status, 400);
  t.regex(await refused.text(), /no embeddings model named nope; declared: tiny/);
});

test.serial('bad requests are coded errors naming what is accepted', async (t) => {
  if (!context) return t.pass();
  const cases: Array<[unknown, string]> = [
    [{ datasets: ['notes'] }, 'text'],
    [{ text: 'x', datasets: [] }, 'No data sources provided'],
    [{ text: 'x', datasets: ['orders'] }, 'searchable datasets: notes, articles, faq'],
    [{ text: 'x', limit: 0 }, 'limit'],
    [{ text: 'x', additional_columns: ['nope'] }, 'has no column nope'],
    [{ text: 'x', datasets: ['notes'], where: 'missing_column > 1' }, 'missing_column'],
    [{ text: 'x', surprise: true }, 'surprise'],
  ];
  for (const [body, expected] of cases) {
    const answer = await search(context.baseUrl, body);
    t.is(answer.status, 400, JSON.stringify(body));
    t.is(answer.body.error?.code, 'SEARCH_INVALID_REQUEST', JSON.stringify(answer.body));
    t.true(answer.body.error!.message.includes(expected), `${JSON.stringify(body)}: ${answer.body.error!.message}`);
  }
  const notJson = await fetch(`${context.baseUrl}/v1/search`, { method: 'POST', body: '{"text":' });
  t.is(notJson.status, 400);
  const unknownDataset = await context.sql(`SELECT * FROM text_search('articles', 'x')`);
  t.true((await unknownDataset.text()).includes('text_search: articles has no full-text search; datasets with one: notes, faq'));
});
