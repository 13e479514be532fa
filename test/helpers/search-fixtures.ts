import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import type { BundledPlugin } from '../../core/plugins/types.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { createSearchPlugin, type SearchPlugin } from '../../plugins/search/index.js';
import { pythonClientsFor } from './python-clients.js';
import { repositoryRoot, startRuntime, type RuntimeSetup, type TestRuntime } from './runtime.js';

/**
 * The tiny sentence-embedding model of the search tests, built by the `onnx` Python package
 * (test/fixtures/search/tiny_embedding_model.py) into test/.generated: a real ONNX file and a
 * real WordPiece tokenizer.json, so inference in the runtime is real and offline. Undefined
 * (the test passed or failed by pythonClientsFor) when Python lacks the package.
 */
export async function tinyEmbeddingModel(t: ExecutionContext): Promise<{ model: string; tokenizer: string; directory: string } | undefined> {
  if (!(await pythonClientsFor(t))) return undefined;
  const directory = path.join(repositoryRoot, 'test/.generated/tiny-embedding-model');
  const model = path.join(directory, 'model.onnx');
  const tokenizer = path.join(directory, 'tokenizer.json');
  if (!existsSync(model) || !existsSync(tokenizer)) {
    mkdirSync(directory, { recursive: true });
    const built = spawnSync('python3', [path.join(repositoryRoot, 'test/fixtures/search/tiny_embedding_model.py'), directory], { encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`building the tiny embedding model failed: ${built.stderr}`);
  }
  return { model, tokenizer, directory };
}

/** The default plugins with the search plugin's instance at hand (its `whenIndexed`). */
function bundleWithSearch(): { bundle: BundledPlugin[]; search: SearchPlugin } {
  const search = createSearchPlugin();
  return { bundle: defaultPlugins().map((plugin) => (plugin.name === 'search' ? search : plugin)), search };
}

/** Starts a runtime with the default plugins and returns once every searchable dataset's first index build ended. */
export async function startIndexedRuntime(setup: Omit<RuntimeSetup, 'bundle'>): Promise<TestRuntime> {
  const { bundle, search } = bundleWithSearch();
  const context = await startRuntime({ ...setup, bundle });
  await search.whenIndexed();
  return context;
}

/** Short texts on four topics (animals, vehicles, food, weather), in the tiny model's vocabulary. */
export const NOTES_CSV = `id,title,body
1,Pets,My cat has soft fur and likes to meow
2,Garage,The big red truck has a loud engine
3,Kitchen,We baked pizza with cheese and tomato in the oven
4,Forecast,Rain and wind all day with a cold storm
5,Dog park,The puppy and the dog barked at every bus
`;

/** A /v1/search answer as the tests read it. */
export interface SearchBody {
  results: Array<{ matches: Record<string, string[]>; dataset: string; primary_key: Record<string, unknown>; data: Record<string, unknown>; score: number; _score: number }>;
  duration_ms: number;
  error?: { code: string; message: string };
}

/** POST /v1/search with a JSON body; the answer's status, headers and parsed body. */
export async function search(baseUrl: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: SearchBody }> {
  const response = await fetch(`${baseUrl}/v1/search`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });
  return { status: response.status, headers: response.headers, body: (await response.json()) as SearchBody };
}

/** The generation of a dataset's search index, from GET /v1/search/indexes. */
export async function indexGeneration(baseUrl: string, dataset: string): Promise<number> {
  const status = (await (await fetch(`${baseUrl}/v1/search/indexes`)).json()) as Array<{ dataset: string; generation: number }>;
  return status.find((entry) => entry.dataset === dataset)!.generation;
}

/** Waits for a rebuild after a refresh or write: each poll is one request, the next after it answers. */
export async function untilIndexGeneration(baseUrl: string, dataset: string, generation: number): Promise<void> {
  while ((await indexGeneration(baseUrl, dataset)) < generation) await new Promise((resolve) => setImmediate(resolve));
}
