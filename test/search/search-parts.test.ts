import test from 'ava';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { chunkText } from '../../plugins/search/chunking.js';
import { reciprocalRankFusion } from '../../plugins/search/fusion.js';
import { searchDatasets } from '../../plugins/search/search-datasets.js';
import { parseSearchRequest } from '../../plugins/search/search-request.js';
import { unservedReason } from '../../plugins/search/schema.js';
import { taskHistory } from '../../core/tasks/task-history.js';
import { writeManifestDirectory } from '../helpers/runtime.js';
import { createLogger } from '../../core/log.js';
import { loadManifest } from '../../core/manifest/load.js';
import { Runtime } from '../../core/runtime.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { NOTES_CSV, search, startIndexedRuntime } from '../helpers/search-fixtures.js';
import type { DatasetConfig } from '../../core/manifest/types.js';

const chunking = (target: number, overlap: number, trim = true) => ({ enabled: true, target_chunk_size: target, overlap_size: overlap, trim_whitespace: trim });

test('chunks: words per chunk, the overlap repeated, the original spacing kept; short texts stay whole', (t) => {
  t.deepEqual(chunkText('one two three four five six seven', chunking(3, 1)), ['one two three', 'three four five', 'five six seven']);
  t.deepEqual(chunkText('one  two\nthree four', chunking(2, 0)), ['one  two', 'three four']);
  t.deepEqual(chunkText(' a b ', chunking(5, 0)), ['a b']);
  t.deepEqual(chunkText(' a b ', undefined), [' a b ']);
  // Untrimmed, the chunks cover the whole text, whitespace included.
  t.is(chunkText(' a b  c d ', chunking(2, 0, false)).join(''), ' a b  c d ');
  const many = Array.from({ length: 1000 }, (_, index) => `w${index}`).join(' ');
  const pieces = chunkText(many, chunking(100, 10));
  t.true(pieces.every((piece) => piece.split(' ').length <= 100));
  t.is(pieces.at(-1)!.split(' ').at(-1), 'w999');
});

test('reciprocal rank fusion: rows in both lists first, then by rank; items merged', (t) => {
  const fused = reciprocalRankFusion(
    [
      [{ row: 'a', item: ['a1'] }, { row: 'b', item: ['b1'] }],
      [{ row: 'b', item: ['b2'] }, { row: 'c', item: ['c2'] }],
    ],
    (items) => items.flat(),
  );
  t.deepEqual(fused.map((entry) => entry.row), ['b', 'a', 'c']);
  t.deepEqual(fused[0]!.item, ['b1', 'b2']);
  t.is(fused[0]!.score, 1 / 62 + 1 / 61);
});

test('search requests: defaults, Spice\'s empty datasets answer, refusals naming what is accepted', (t) => {
  t.deepEqual(parseSearchRequest({ text: ' cats ' }), { text: 'cats', limit: 3, additional_columns: [] });
  const refusals: Array<[unknown, RegExp]> = [
    [undefined, /the search body is empty/],
    [{ text: '' }, /text is empty/],
    [{ text: 'x', datasets: [] }, /No data sources provided/],
    [{ text: 'x', limit: 1.5 }, /limit/],
    [{ text: 'x', limit: 100_000 }, /limit/],
    [{ text: 'a\u0000b' }, /NUL/],
    [{ text: 'x'.repeat(10_001) }, /longer than 10000/],
    [{ text: 'x', keywords: 'y' }, /keywords/],
  ];
  for (const [body, pattern] of refusals) {
    const error = t.throws(() => parseSearchRequest(body), undefined, JSON.stringify(body));
    t.is((error as QuarryError).code, 'SEARCH_INVALID_REQUEST');
    t.regex(error!.message, pattern);
  }
});

const dataset = (overrides: Partial<DatasetConfig>): DatasetConfig => ({ from: 'file:x.csv', name: 'docs', access: 'read', params: {}, acceleration: { enabled: true } as DatasetConfig['acceleration'], ...overrides }) as DatasetConfig;

test('search datasets: column settings and the older dataset-level form; what cannot be served is refused', (t) => {
  const { datasets: found } = searchDatasets(
    [
      dataset({ columns: [{ name: 'title', full_text_search: { enabled: true, row_id: ['id'] } }, { name: 'body', embeddings: [{ from: 'm' }] }] }),
      dataset({ name: 'old', embeddings: [{ column: 'text', use: 'm', column_pk: ['key'] }] }),
      dataset({ name: 'plain' }),
    ],
    new Set(['m']),
  );
  t.deepEqual(found.map((entry) => [entry.name, entry.rowId, entry.columns.map((column) => [column.name, column.ordinal, column.fullText, column.embedding?.model])]), [
    ['docs', ['id'], [['title', 1, true, undefined], ['body', 2, false, 'm']]],
    ['old', ['key'], [['text', 1, false, 'm']]],
  ]);
  const refusals: Array<[DatasetConfig, RegExp]> = [
    [dataset({ columns: [{ name: 'body', embeddings: [{ from: 'missing' }] }] }), /not an embeddings: model \(declared: m\)/],
    [dataset({ acceleration: undefined, columns: [{ name: 'body', full_text_search: { enabled: true } }] }), /need an accelerated dataset/],
    [dataset({ columns: [{ name: 'body', embeddings: [{ from: 'm' }, { from: 'm' }] }] }), /embedded twice/],
    [dataset({ columns: [{ name: 'a', full_text_search: { enabled: true, row_id: ['x'] } }, { name: 'b', full_text_search: { enabled: true, row_id: ['y'] } }] }), /different row_id columns/],
  ];
  for (const [config, pattern] of refusals) {
    const error = t.throws(() => searchDatasets([config], new Set(['m'])));
    t.is((error as QuarryError).code, 'SEARCH_CONFIG_INVALID');
    t.regex(error!.message, pattern);
  }
});

test('a model Quarry does not run (huggingface:, a .safetensors file) is warned about; its columns get no vectors, the pod loads', (t) => {
  const { datasets, warnings } = searchDatasets(
    [dataset({ columns: [{ name: 'body', full_text_search: { enabled: true }, embeddings: [{ from: 'hf' }] }] }), dataset({ name: 'only_vectors', acceleration: undefined, columns: [{ name: 'text', embeddings: [{ from: 'hf' }] }] })],
    new Set(),
    new Map([['hf', "the provider 'huggingface' is not served"]]),
  );
  t.deepEqual(datasets.map((entry) => [entry.name, entry.columns.map((column) => [column.name, column.fullText, column.embedding])]), [['docs', [['body', true, undefined]]]]);
  t.deepEqual(warnings, [
    "dataset docs: column body gets no vectors: embeddings model hf: the provider 'huggingface' is not served",
    "dataset only_vectors: column text gets no vectors: embeddings model hf: the provider 'huggingface' is not served",
  ]);
  t.is(unservedReason({ name: 'm', from: 'huggingface:huggingface.co/sentence-transformers/all-MiniLM-L6-v2', params: {} }), "the provider 'huggingface' is not served: Quarry runs openai:<model> (any OpenAI-compatible endpoint) and file:<path to a .onnx model>");
  t.regex(unservedReason({ name: 'm', from: 'file:models/model.safetensors', params: {} })!, /not an ONNX model/);
  t.is(unservedReason({ name: 'm', from: 'file', files: [{ path: 'm/model.onnx' }], params: {} }), undefined);
  t.is(unservedReason({ name: 'm', from: 'openai:text-embedding-3-small', params: {} }), undefined);
});

test('a Spice cookbook pod with a huggingface model loads with a warning; its full-text search works', async (t) => {
  const context = await startIndexedRuntime({
    manifest: `version: v1
kind: Spicepod
name: cookbook
embeddings:
  - from: huggingface:huggingface.co/sentence-transformers/all-MiniLM-L6-v2
    name: hf_minilm
datasets:
  - from: file:data/notes.csv
    name: notes
    acceleration:
      enabled: true
    columns:
      - name: body
        embeddings:
          - from: hf_minilm
            row_id: id
        full_text_search:
          enabled: true
          row_id: id
runtime:
  task_history:
    captured_output: truncated
    captured_context: redacted
`,
    files: { 'data/notes.csv': NOTES_CSV },
  });
  try {
    t.true(context.logs.some((record) => record.message.startsWith("embeddings model hf_minilm is not loaded: the provider 'huggingface' is not served")), JSON.stringify(context.logs.map((record) => record.message)));
    const answer = await search(context.baseUrl, { text: 'loud truck', limit: 1 });
    t.deepEqual(answer.body.results[0]?.primary_key, { id: 2 });
    // captured_context: redacted hides the search's text and output in task history.
    await taskHistory(context.runtime.hooks)!.flush();
    const history = (await (await context.sql(`SELECT input, captured_output FROM runtime.task_history WHERE task = 'search'`)).json()) as Array<{ input: string; captured_output: string }>;
    t.deepEqual(history, [{ input: '[redacted]', captured_output: '[redacted]' }]);
    const vector = await context.sql(`SELECT * FROM vector_search('notes', 'truck')`);
    t.regex(await vector.text(), /vector_search: notes has no vector search: no dataset has embeddings with a model Quarry runs on a column/);
  } finally {
    await context.runtime.stop();
  }
});

test('an index that cannot be built (a column that is not text) is reported, and searches say why', async (t) => {
  const context = await startIndexedRuntime({
    manifest: `version: v2
kind: Spicepod
name: broken-index
datasets:
  - from: file:data/notes.csv
    name: notes
    acceleration:
      enabled: true
    columns:
      - name: id
        full_text_search:
          enabled: true
`,
    files: { 'data/notes.csv': NOTES_CSV },
  });
  try {
    const answer = await search(context.baseUrl, { text: 'truck' });
    t.is(answer.status, 503);
    t.is(answer.body.error?.code, 'SEARCH_INDEX_NOT_READY');
    t.regex(answer.body.error!.message, /dataset notes: its search index failed to build: dataset notes column id is BIGINT; full_text_search and embeddings need text \(VARCHAR\) columns/);
    const status = (await (await fetch(`${context.baseUrl}/v1/search/indexes`)).json()) as Array<{ error?: string; full_text_ready: boolean }>;
    t.false(status[0]!.full_text_ready);
    t.regex(status[0]!.error ?? '', /column id is BIGINT/);
    const sql = await context.sql(`SELECT * FROM text_search('notes', 'truck')`);
    t.regex(await sql.text(), /text_search: dataset notes: its search index failed to build/);
  } finally {
    await context.runtime.stop();
  }
});

test('start-up refuses a column embedded with a model no embeddings: entry declares, with SEARCH_CONFIG_INVALID', async (t) => {
  const directory = writeManifestDirectory({
    manifest: `version: v1
kind: Spicepod
name: typo
datasets:
  - from: file:data/notes.csv
    name: notes
    acceleration:
      enabled: true
    columns:
      - name: body
        embeddings:
          - from: minilm
`,
    files: { 'data/notes.csv': NOTES_CSV },
  });
  const loaded = await loadManifest({ path: directory, bundle: defaultPlugins() });
  const runtime = new Runtime({ manifest: loaded.manifest, source: loaded.source, plugins: loaded.plugins, log: createLogger({ level: 'info', sink: () => undefined }), http: '127.0.0.1:0', flight: false });
  const error = await t.throwsAsync(runtime.start());
  t.is((error as QuarryError).code, 'SEARCH_CONFIG_INVALID');
  t.regex(error!.message, /dataset notes: column body is embedded with "minilm", which is not an embeddings: model \(none is declared\)/);
  await runtime.stop().catch(() => undefined);
});
