import test from 'ava';
import { startDaemon, waitForOutput, type Daemon } from '../helpers/daemon.js';
import { pythonClients, runPythonCases, type CaseOutcome } from '../helpers/python-clients.js';
import { writeManifestDirectory } from '../helpers/runtime.js';
import { NOTES_CSV, tinyEmbeddingModel } from '../helpers/search-fixtures.js';

/**
 * Search through clients Quarry did not write: Python's http.client (POST /v1/search,
 * /v1/sql), the official Python MCP SDK (the search tool) and OpenAI's Python SDK
 * (POST /v1/embeddings), against a real quarryd with
 * API keys and the tiny ONNX model. Cases: test/conformance/python/search_cases.py.
 */
const READER = 'search-reader-key';
const WRITER = 'search-writer-key';
const CASES = [
  'search_over_http',
  'search_needs_a_key',
  'mcp_search_tool_matches_http',
  'openai_sdk_creates_embeddings',
  'search_functions_in_sql',
  'search_text_stays_text',
  'search_state_cannot_be_changed_by_callers',
];

let daemon: Daemon | undefined;
let run: Promise<{ outcomes: Map<string, CaseOutcome>; stderr: string }> | undefined;

test.before(async (t) => {
  const clients = await pythonClients();
  if (!clients.available) return;
  const model = await tinyEmbeddingModel(t);
  if (!model) return;
  const manifest = `
version: v2
kind: Spicepod
name: search-conformance
embeddings:
  - name: tiny
    from: file:${model.model}
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
runtime:
  caching:
    search_results:
      item_ttl: 10m
  auth:
    api-key:
      keys:
        - ${WRITER}:rw
        - ${READER}
`;
  daemon = await startDaemon([writeManifestDirectory({ manifest, files: { 'data/notes.csv': NOTES_CSV } })]);
  await waitForOutput(daemon, /search index of notes built/);
  run = runPythonCases('search_cases.py', ['--base', daemon.baseUrl, '--key', READER, '--writer-key', WRITER, ...CASES]);
});

test.after.always(async () => {
  daemon?.child.kill('SIGTERM');
  await daemon?.exited;
});

for (const name of CASES) {
  test(`search conformance: ${name.replaceAll('_', ' ')}`, async (t) => {
    if (!run) {
      // tinyEmbeddingModel / pythonClients already failed the run under CI; elsewhere the reason was logged.
      if (process.env['CI'] === 'true') t.fail('the Python clients or the onnx package are missing');
      else t.pass();
      return;
    }
    const { outcomes, stderr } = await run;
    const outcome = outcomes.get(name);
    t.truthy(outcome, `the case did not report (python stderr: ${stderr.slice(-2000)})`);
    t.true(outcome?.ok, outcome?.error);
  });
}
