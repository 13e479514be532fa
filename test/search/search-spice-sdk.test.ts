import test from 'ava';
import { SpiceClient } from '@spiceai/spice';
import { NOTES_CSV, startIndexedRuntime, tinyEmbeddingModel } from '../helpers/search-fixtures.js';

/**
 * Spice's own JavaScript SDK (@spiceai/spice, a dev dependency: Quarry wrote none of it)
 * searching a runtime with full-text and vector search: `client.search()` posts to /v1/search
 * and reads Spice's wire format (`_score`, `matches`, `primary_key`, `data`).
 */
test('spice.js search(): hybrid matches, keywords, where and additional columns as the SDK reads them', async (t) => {
  const model = await tinyEmbeddingModel(t);
  if (!model) return;
  const context = await startIndexedRuntime({
    manifest: `
version: v1
kind: Spicepod
name: spice-sdk-search
embeddings:
  - name: tiny
    from: file:${model.model}
datasets:
  - from: file:data/notes.csv
    name: notes
    acceleration:
      enabled: true
      primary_key: id
    columns:
      - name: body
        full_text_search:
          enabled: true
        embeddings:
          - from: tiny
`,
    files: { 'data/notes.csv': NOTES_CSV },
  });
  try {
    const client = new SpiceClient({ httpUrl: context.baseUrl, flightUrl: '127.0.0.1:9', httpOnly: true, logging: false });
    const answer = await client.search('a kitten', { datasets: ['notes'], limit: 2, additional_columns: ['title'] });
    t.is(answer.results.length, 2);
    t.deepEqual(answer.results[0], { dataset: 'notes', score: answer.results[0]!.score, matches: { body: ['My cat has soft fur and likes to meow'] }, primary_key: { id: 1 }, data: { title: 'Pets' }, metadata: {} });
    t.is(typeof answer.results[0]!.score, 'number');
    t.true(answer.results[0]!.score > answer.results[1]!.score);
    t.is(typeof answer.duration_ms, 'number');
    // keywords join the full-text query: "engine" finds the truck note by its words.
    const withKeywords = await client.search('kitten', { datasets: ['notes'], limit: 5, keywords: ['engine'], where: 'id <> 1' });
    t.true(withKeywords.results.some((result) => result.primary_key['id'] === 2), JSON.stringify(withKeywords.results));
    t.false(withKeywords.results.some((result) => result.primary_key['id'] === 1));
    const refused = await t.throwsAsync(client.search('kitten', { datasets: ['orders'] }));
    t.regex(String(refused?.message), /400.*SEARCH_INVALID_REQUEST.*notes/);
  } finally {
    await context.runtime.stop();
  }
});
