import test from 'ava';
import { readFileSync } from 'node:fs';
import { generateManifestSchema, SCHEMA_FILE } from '../../scripts/generate-manifest-schema.js';

test('docs/manifest.schema.json is up to date with the zod schemas', async (t) => {
  const committed = readFileSync(SCHEMA_FILE, 'utf8');
  t.true(committed === (await generateManifestSchema()), 'docs/manifest.schema.json is stale: run npm run schema:generate and commit the result');
});

test('the JSON schema describes every runtime section and the input form of defaults', async (t) => {
  const schema = JSON.parse(await generateManifestSchema()) as {
    properties: Record<string, { properties?: Record<string, { required?: string[]; description?: string }> }>;
  };
  const runtime = schema.properties.runtime!.properties!;
  for (const key of ['auth', 'caching', 'results_cache', 'telemetry', 'metrics', 'task_history', 'functions', 'mcp', 'source_rate_control', 'scheduler', 'tls', 'query', 'params', 'flight', 'cors']) {
    t.truthy(runtime[key], `runtime.${key} missing from the JSON schema`);
  }
  t.deepEqual(runtime.scheduler!.required, ['state_location'], 'fields with defaults are optional on input');
  t.regex(runtime.shutdown_timeout!.description ?? '', /duration/);
});
