import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { parse } from 'yaml';
import { runCommand } from '../helpers/daemon.js';
import { pythonClientsFor } from '../helpers/python-clients.js';
import { repositoryRoot } from '../helpers/runtime.js';
import { yamlLanguageServerErrors } from '../helpers/yaml-language-server.js';

/**
 * docs/manifest.schema.json (generated from the zod schemas --check uses) judged by two
 * validators Quarry did not write — Python's `jsonschema` (Draft 2020-12) and Red Hat's
 * yaml-language-server, as editors run it — against --check's verdicts:
 * - every good manifest (the examples, the Spice pods) validates in both;
 * - every bad-manifest fixture, which --check refuses (bad-manifests.test.ts), is flagged by
 *   both, unless its folder has schema-accepts.txt saying why a schema cannot know (a rule
 *   across fields or entries, a value's range, the environment, a user plugin's section);
 *   such a fixture must then validate, so the list stays true as the schema grows.
 */

const SCHEMA = path.join(repositoryRoot, 'docs/manifest.schema.json');
const BAD = path.join(repositoryRoot, 'test/fixtures/bad-manifests');
const MANIFEST_NAMES = ['quarry.yaml', 'quarry.yml', 'spicepod.yaml', 'spicepod.yml'];

const GOOD = [
  'examples/quickstart/quarry.yaml',
  'examples/plugins/quarry.yaml',
  'examples/plugins/guide/quarry.yaml',
  ...readdirSync(path.join(repositoryRoot, 'test/spice-pods/pods')).map((pod) => `test/spice-pods/pods/${pod}/spicepod.yaml`),
];

interface Fixture {
  name: string;
  text: string;
  /** Why a schema cannot flag it; undefined: both validators must. */
  accepts: string | undefined;
  /** The YAML parser's verdict: a text that is no YAML document is refused before any schema. */
  document: { ok: true; value: unknown } | { ok: false };
}

function fixtures(): Fixture[] {
  return readdirSync(BAD, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const file = MANIFEST_NAMES.map((name) => path.join(BAD, entry.name, name)).find((candidate) => existsSync(candidate));
      if (!file) return []; // the "manifest not found" case has no text to judge
      const text = readFileSync(file, 'utf8');
      const reasonFile = path.join(BAD, entry.name, 'schema-accepts.txt');
      let document: Fixture['document'];
      try {
        document = { ok: true, value: parse(text) ?? null };
      } catch {
        document = { ok: false };
      }
      return [{ name: entry.name, text, accepts: existsSync(reasonFile) ? readFileSync(reasonFile, 'utf8').trim() : undefined, document }];
    });
}

/** `jsonschema`'s verdicts, by name. */
function jsonschemaErrors(documents: ReadonlyArray<{ name: string; document: unknown }>): Map<string, string[]> {
  const input = documents.map((entry) => JSON.stringify(entry)).join('\n');
  const run = spawnSync('python3', [path.join(repositoryRoot, 'test/conformance/python/schema_verdicts.py'), SCHEMA], { input, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return new Map(run.stdout.trim().split('\n').map((line) => {
    const verdict = JSON.parse(line) as { name: string; errors: string[] };
    return [verdict.name, verdict.errors];
  }));
}

test('the good manifests validate in jsonschema and yaml-language-server, and --check accepts the ones that need no preparation', async (t) => {
  if (!(await pythonClientsFor(t))) return;
  const texts = GOOD.map((file) => ({ name: file, text: readFileSync(path.join(repositoryRoot, file), 'utf8') }));
  const viaPython = jsonschemaErrors(texts.map(({ name, text }) => ({ name, document: parse(text) })));
  const viaEditor = await yamlLanguageServerErrors(SCHEMA, texts);
  for (const { name } of texts) {
    t.deepEqual(viaPython.get(name), [], `jsonschema: ${name}`);
    t.deepEqual(viaEditor.get(name), [], `yaml-language-server: ${name}`);
  }
  for (const [file, env] of [['examples/quickstart/quarry.yaml', {}], ['examples/plugins/quarry.yaml', { HMAC_REPORTING_SECRET: 'a-secret' }], ['test/spice-pods/pods/taxi-tutorial/spicepod.yaml', {}]] as const) {
    const checked = await runCommand('quarryd', [path.join(repositoryRoot, file), '--check'], { env });
    t.is(checked.code, 0, `--check ${file}: ${checked.stderr}`);
  }
});

test('every bad manifest is flagged by both validators, unless schema-accepts.txt says why no schema can', async (t) => {
  if (!(await pythonClientsFor(t))) return;
  const all = fixtures();
  t.true(all.length >= 80, `${all.length} fixtures`);
  const parsed = all.filter((fixture) => fixture.document.ok);
  const viaPython = jsonschemaErrors(parsed.map((fixture) => ({ name: fixture.name, document: (fixture.document as { value: unknown }).value })));
  const viaEditor = await yamlLanguageServerErrors(SCHEMA, all);
  for (const fixture of all) {
    const editor = viaEditor.get(fixture.name) ?? [];
    if (!fixture.document.ok) {
      if (fixture.accepts === undefined) t.true(editor.length > 0, `${fixture.name}: not YAML, so the editor flags it too`);
      continue;
    }
    const python = viaPython.get(fixture.name) ?? [];
    if (fixture.accepts === undefined) {
      t.true(python.length > 0, `${fixture.name}: jsonschema accepts what --check refuses`);
      // An empty document (only comments) is not validated by the editor at all: nothing to flag a line of.
      if (fixture.document.value !== null) t.true(editor.length > 0, `${fixture.name}: yaml-language-server accepts what --check refuses`);
    } else {
      t.deepEqual(python, [], `${fixture.name} is listed as beyond a schema (${fixture.accepts}), but jsonschema flags it: delete its schema-accepts.txt`);
      t.deepEqual(editor, [], `${fixture.name} is listed as beyond a schema (${fixture.accepts}), but yaml-language-server flags it: delete its schema-accepts.txt`);
    }
  }
  const flagged = all.filter((fixture) => fixture.accepts === undefined).length;
  t.log(`${flagged} of ${all.length} fixtures flagged by the schema; ${all.length - flagged} need what only --check knows`);
});
