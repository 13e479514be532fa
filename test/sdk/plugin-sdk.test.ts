import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { flightEndpointOf, runCommand, startDaemon } from '../helpers/daemon.js';
import { ensureExamplePackage, EXAMPLE_PACKAGE } from '../helpers/example-package.js';
import { pythonClientsFor, runPythonCases } from '../helpers/python-clients.js';
import { repositoryRoot } from '../helpers/runtime.js';
import { temporaryDirectory } from '../helpers/temporary-directory.js';

/**
 * The plugin SDK as an author outside the repository meets it: examples/plugins is a package
 * of its own depending on `quarry` (file:../..), its TypeScript plugins import only `quarry`
 * and `quarry/plugin`, type-check under --strict, and load from `.ts` into the shipped
 * quarryd (bin/quarryd.js on dist/, no tsx on the command line). Clients Quarry did not
 * write see the plugins' refusals and answers on every door.
 */

const run = promisify(execFile);
const BLUE = 'blue-team-token-0001';
const GREEN = 'green-team-token-001';
const example = (file: string) => path.join(EXAMPLE_PACKAGE, file);

test.before(async () => {
  await ensureExamplePackage();
});

test('the example package type-checks under --strict against the published types', async (t) => {
  const tsc = path.join(repositoryRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const config = JSON.parse(readFileSync(example('tsconfig.json'), 'utf8')) as { compilerOptions: { strict: boolean } };
  t.true(config.compilerOptions.strict);
  const result = await run(process.execPath, [tsc, '-p', example('tsconfig.json')]).then(
    () => ({ code: 0, output: '' }),
    (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
  );
  t.is(result.code, 0, result.output);
});

test('the guide\'s plugins, loaded from .ts by the shipped quarryd, refuse and answer on HTTP, Flight and MCP', async (t) => {
  if (!(await pythonClientsFor(t))) return;
  const directory = temporaryDirectory('quarry-plugin-sdk-');
  const log = path.join(directory, 'queries.ndjson');
  writeFileSync(path.join(directory, 'quarry.yaml'), `version: v1
kind: Spicepod
name: plugin-sdk
datasets:
  - from: file:${path.join(repositoryRoot, 'examples/quickstart/data/orders.parquet')}
    name: orders
    acceleration:
      enabled: true
plugins:
  - name: api-key
    enabled: false
  - name: results-cache
    enabled: false
  - from: ${example('team-token-auth.ts')}
    params:
      tokens:
        - { token: "\${ env:BLUE_TEAM_TOKEN }", team: blue, can_write: true }
        - { token: "\${ env:GREEN_TEAM_TOKEN }", team: green }
  - from: ${example('memory-cache.ts')}
    params: { ttl: 5m }
  - from: ${example('query-log.ts')}
    params: { file: ${log} }
  - from: ${example('whoami-route.ts')}
`);
  const daemon = await startDaemon([directory], { shipped: true, env: { BLUE_TEAM_TOKEN: BLUE, GREEN_TEAM_TOKEN: GREEN } });
  try {
    const flight = await flightEndpointOf(daemon);
    while ((await fetch(`${daemon.baseUrl}/v1/ready`)).status !== 200) {
      if (daemon.child.exitCode !== null) throw new Error(daemon.output());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { outcomes, stderr, code } = await runPythonCases('plugin_sdk_cases.py', ['--base', daemon.baseUrl, '--flight', flight, '--blue', BLUE, '--green', GREEN, '--log', log]);
    t.is(code, 0, stderr);
    t.deepEqual([...outcomes.keys()].sort(), [
      'flight_answers',
      'flight_refusals',
      'http_answers_and_route',
      'http_refusals',
      'mcp_answers',
      'mcp_refusal',
      'memory_cache_serves_every_door',
      'read_only_team_cannot_write',
    ]);
    for (const [name, outcome] of outcomes) t.true(outcome.ok, `${name}: ${outcome.error ?? ''}\n${daemon.output()}`);
    t.regex(daemon.output(), /plugins=.*team-token-auth:.*team-token-auth\.ts/, 'the start-up line names the user plugins and their files');

    // The quarry client sends a custom scheme's credentials with --header (or QUARRY_HEADERS), on both transports.
    for (const endpoint of [flight, daemon.baseUrl]) {
      const answered = await runCommand('quarry', ['sql', '--endpoint', endpoint, '-H', `X-Team-Token: ${BLUE}`, '-e', 'SELECT 7 AS seven', '-o', 'json']);
      t.is(answered.code, 0, answered.stderr);
      t.deepEqual(JSON.parse(answered.stdout), [{ seven: 7 }]);
      const refused = await runCommand('quarry', ['sql', '--endpoint', endpoint, '-e', 'SELECT 7 AS seven']);
      t.is(refused.code, 1);
      t.is(refused.stderr, "Error: unauthorized: send X-Team-Token: <your team token> (send the runtime's credentials with --header 'Name: value', or --api-key)\n");
      const readOnly = await runCommand('quarry', ['sql', '--endpoint', endpoint, '-e', 'CREATE TABLE graffiti AS SELECT 1 AS x'], { env: { QUARRY_HEADERS: `X-Team-Token: ${GREEN}` } });
      t.is(readOnly.code, 1);
      t.regex(readOnly.stderr, /this caller may only read \(ask for a team token with can_write: true\)/);
      t.notRegex(readOnly.stderr, /:rw/);
    }
    const status = await runCommand('quarry', ['status', '--endpoint', daemon.baseUrl], { env: { QUARRY_HEADERS: `X-Team-Token: ${GREEN}` } });
    t.is(status.code, 0, status.stderr);
  } finally {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
  }
});

/** `quarryd --check` (shipped) on a folder holding a package.json, one plugin file and a manifest loading it. */
async function checkPluginFolder(packageJson: string, file: string, source: string): Promise<{ code: number; stderr: string }> {
  const directory = temporaryDirectory('quarry-plugin-folder-');
  writeFileSync(path.join(directory, 'package.json'), packageJson);
  writeFileSync(path.join(directory, file), source);
  writeFileSync(path.join(directory, 'quarry.yaml'), `version: v1\nkind: Spicepod\nname: folder\nplugins:\n  - from: ./${file}\n`);
  return run(process.execPath, [path.join(repositoryRoot, 'bin/quarryd.js'), directory, '--check']).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
}

test('a plugin written for another plugin API version is refused at start-up, naming both versions', async (t) => {
  const result = await checkPluginFolder('{ "type": "module" }\n', 'future.ts', "export default { name: 'from-the-future', pluginApiVersion: 99, apply(): void {} };\n");
  t.is(result.code, 1);
  t.regex(result.stderr, /error \[PLUGIN_API_MISMATCH\]: plugins\[0\]\.from: plugin "from-the-future" \(\.\/future\.ts\) was written for plugin API 99; this runtime serves plugin API 1/);
});

test('a .ts plugin outside an ES-module package is refused with what to change', async (t) => {
  const result = await checkPluginFolder('{ "name": "no-type" }\n', 'lonely.ts', "export default { name: 'lonely', apply(): void {} };\n");
  t.is(result.code, 1, 'Node 20 with tsx treats a .ts file in a CommonJS package as CommonJS');
  t.regex(result.stderr, /error \[PLUGIN_LOAD_FAILED\]: plugins\[0\]\.from: importing "\.\/lonely\.ts" failed: .* \(a \.ts plugin is loaded as an ES module only inside a package whose package\.json says "type": "module" — .*package\.json does not; add it, or name the file \.mts\)/);
});
