/**
 * search: what search costs beside a baseline measured in the same run.
 * - Building embeddings: quarryd's whole vector-index build of a dataset (read the texts from
 *   the engine, embed them in batches with the tiny ONNX model of the tests, append the
 *   vectors) against the same model embedding the same texts in the same batches, called
 *   directly in this process: the build's overhead over inference alone.
 * - Building the full-text index: its build time against the dataset's own load (acceleration).
 * - Answering: POST /v1/search (full-text) against POST /v1/sql of the same `text_search`,
 *   each text new (no cache answers), sequential, medians.
 * Needs python3 with the onnx package (it builds the model). SEARCH_ROWS sets the rows (default 20000).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OnnxEmbedder } from '../../plugins/search/models/onnx-embedder.js';
import { benchData, median, repositoryRoot, startServer } from '../common/server.js';

const ROWS = Number(process.env['SEARCH_ROWS'] ?? 20_000);
const RUNS = 3;
const QUERIES = 200;
const BATCH = 64;
const WORDS = ['cat', 'dog', 'kitten', 'puppy', 'truck', 'bus', 'train', 'road', 'pizza', 'bread', 'cheese', 'soup', 'rain', 'snow', 'storm', 'wind', 'the', 'a', 'and', 'with', 'my', 'red', 'big', 'loud'];

/** Deterministic pseudo-random texts of 8 to 20 words from the model's vocabulary, each ending in its own number (all distinct). */
function texts(count: number): string[] {
  let seed = 7;
  // xorshift32: the low bits vary too (a power-of-two LCG's do not).
  const next = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return seed >>> 0;
  };
  return Array.from({ length: count }, (_, index) => `${Array.from({ length: 8 + (next() % 13) }, () => WORDS[next() % WORDS.length]).join(' ')} n${index}`);
}

const modelDirectory = path.join(benchData, 'tiny-embedding-model');
if (!existsSync(path.join(modelDirectory, 'model.onnx'))) {
  mkdirSync(modelDirectory, { recursive: true });
  const built = spawnSync('python3', [path.join(repositoryRoot, 'test/fixtures/search/tiny_embedding_model.py'), modelDirectory], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`building the model needs python3 with onnx (pip install onnx): ${built.stderr}`);
}

const bodies = texts(ROWS);
const directory = mkdtempSync(path.join(os.tmpdir(), 'quarry-bench-search-'));
writeFileSync(path.join(directory, 'docs.csv'), `id,body\n${bodies.map((body, index) => `${index},${body}`).join('\n')}\n`);
writeFileSync(path.join(directory, 'quarry.yaml'), `version: v2
kind: Spicepod
name: bench-search
embeddings:
  - name: tiny
    from: file:${path.join(modelDirectory, 'model.onnx')}
    params:
      batch_size: ${BATCH}
datasets:
  - from: file:docs.csv
    name: docs_text
    acceleration: { enabled: true, primary_key: id }
    columns: [{ name: body, full_text_search: { enabled: true } }]
  - from: file:docs.csv
    name: docs_vectors
    acceleration: { enabled: true, primary_key: id }
    columns: [{ name: body, embeddings: [{ from: tiny }] }]
runtime:
  task_history: { enabled: false }
`);

interface IndexStatus { dataset: string; building: boolean; generation: number; last_build?: { duration_ms: number; texts_embedded: number } }

const results = { vectorBuildMs: [] as number[], inferenceMs: [] as number[], textBuildMs: [] as number[], loadMs: [] as number[], searchMs: [] as number[], sqlMs: [] as number[] };
const distinct = [...new Set(bodies)];
for (let run = 0; run < RUNS; run++) {
  let loadMs = 0;
  const server = await startServer(directory, {
    onLog: (text) => {
      const match = /dataset loaded dataset=docs_text .*?ms=(\d+)/.exec(text);
      if (match) loadMs = Number(match[1]);
    },
  });
  let status: IndexStatus[] = [];
  for (;;) {
    status = (await (await fetch(`${server.baseUrl}/v1/search/indexes`)).json()) as IndexStatus[];
    if (status.every((entry) => entry.generation > 0 && !entry.building)) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const vectors = status.find((entry) => entry.dataset === 'docs_vectors')!.last_build!;
  if (vectors.texts_embedded !== distinct.length) throw new Error(`embedded ${vectors.texts_embedded} texts, expected ${distinct.length}`);
  results.vectorBuildMs.push(vectors.duration_ms);
  results.textBuildMs.push(status.find((entry) => entry.dataset === 'docs_text')!.last_build!.duration_ms);
  if (loadMs > 0) results.loadMs.push(loadMs);

  const words = texts(QUERIES * 2 + run * 7).slice(run * 7);
  for (let query = 0; query < QUERIES; query++) {
    const text = `${words[query]!.split(' ').slice(0, 3).join(' ')} q${run}x${query}`;
    let started = performance.now();
    const searched = await fetch(`${server.baseUrl}/v1/search`, { method: 'POST', body: JSON.stringify({ text, datasets: ['docs_text'], limit: 10 }) });
    await searched.arrayBuffer();
    results.searchMs.push(performance.now() - started);
    started = performance.now();
    const sql = await fetch(`${server.baseUrl}/v1/sql`, { method: 'POST', body: `SELECT * FROM text_search('docs_text', '${text} s', 10)` });
    await sql.arrayBuffer();
    results.sqlMs.push(performance.now() - started);
    if (!searched.ok || !sql.ok) throw new Error(`search ${searched.status}, sql ${sql.status}`);
  }
  await server.stop();

  // The baseline: the same model over the same distinct texts, in the same batches, nothing else.
  const embedder = new OnnxEmbedder({ name: 'tiny', from: `file:${path.join(modelDirectory, 'model.onnx')}`, params: { batch_size: String(BATCH) } } as never, '/');
  await embedder.open(new AbortController().signal);
  const started = performance.now();
  for (let first = 0; first < distinct.length; first += BATCH) await embedder.embed(distinct.slice(first, first + BATCH), new AbortController().signal);
  results.inferenceMs.push(performance.now() - started);
  await embedder.close();
}
rmSync(directory, { recursive: true, force: true });

const vectorBuild = median(results.vectorBuildMs);
const inference = median(results.inferenceMs);
console.log(`search bench: ${ROWS} rows (${distinct.length} distinct texts), ${RUNS} runs, medians`);
console.log(`embeddings build: ${vectorBuild.toFixed(0)} ms (${((distinct.length / vectorBuild) * 1000).toFixed(0)} texts/s); the model alone: ${inference.toFixed(0)} ms; ratio ${(vectorBuild / inference).toFixed(2)}x`);
console.log(`full-text build: ${median(results.textBuildMs).toFixed(0)} ms${results.loadMs.length > 0 ? `; the dataset's load: ${median(results.loadMs).toFixed(0)} ms` : ''}`);
console.log(`answer (full-text, new text each time): POST /v1/search ${median(results.searchMs).toFixed(2)} ms; POST /v1/sql text_search ${median(results.sqlMs).toFixed(2)} ms; ratio ${(median(results.searchMs) / median(results.sqlMs)).toFixed(2)}x`);
