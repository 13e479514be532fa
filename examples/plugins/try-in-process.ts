/**
 * Testing a plugin in-process: the quickstart manifest, the runtime quarryd would run, and the
 * team-token plugin added the way a test adds the plugin it tests. Run with
 *   node --import tsx examples/plugins/try-in-process.ts
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRuntime } from 'quarry';
import teamTokenAuth from './team-token-auth.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const runtime = await createRuntime({
  manifest: path.join(here, '..', 'quickstart'),
  plugins: [teamTokenAuth({ tokens: [{ token: 'a-test-token-of-the-blue-team', team: 'blue' }] })],
  http: '127.0.0.1:0', // a free port
  flight: false,
  outputLevel: 'info',
});
await runtime.start();
try {
  await runtime.whenLoaded();
  const url = `http://${runtime.endpoints().http}/v1/sql`;

  const refused = await fetch(url, { method: 'POST', body: 'SELECT count(*) AS n FROM orders' });
  assert.equal(refused.status, 401);
  assert.deepEqual(await refused.json(), { error: { code: 'TEAM_TOKEN_MISSING', message: 'send X-Team-Token: <your team token>' } });

  const answered = await fetch(url, { method: 'POST', body: 'SELECT count(*) AS n FROM orders', headers: { 'x-team-token': 'a-test-token-of-the-blue-team' } });
  assert.equal(answered.status, 200);
  assert.deepEqual(await answered.json(), [{ n: 5000 }]);
  console.log('team-token-auth: refused without a token, answered with one');
} finally {
  await runtime.stop();
}
