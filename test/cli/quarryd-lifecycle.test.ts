import test from 'ava';
import { QUICKSTART_MANIFEST, writeManifestDirectory } from '../helpers/runtime.js';
import { runCommand, startDaemon } from '../helpers/daemon.js';

// A query that keeps the engine busy for about a second and a half on these machines.
// Long enough (seconds) that SIGTERM lands while it runs, even on a loaded machine.
const SLOW_QUERY = 'SELECT sum(hash(i)) AS total FROM range(600000000) t(i)';

test.serial('SIGTERM lets in-flight queries finish, answers new requests 503 (health 200), then exits 0', async (t) => {
  const directory = writeManifestDirectory({ manifest: `${QUICKSTART_MANIFEST}runtime:\n  shutdown_timeout: 120s\n`, withQuickstartData: true });
  const daemon = await startDaemon([directory]);
  const inFlight = fetch(`${daemon.baseUrl}/v1/sql`, { method: 'POST', body: SLOW_QUERY, headers: { accept: 'application/json' } });
  // The query must have reached the engine before the signal, or there is nothing to drain.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  daemon.child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 150));

  const refused = await fetch(`${daemon.baseUrl}/v1/sql`, { method: 'POST', body: 'SELECT 1' });
  t.is(refused.status, 503);
  t.deepEqual(await refused.json(), { error: { code: 'RUNTIME_SHUTTING_DOWN', message: 'the runtime is shutting down; retry against another replica' } });
  const health = await fetch(`${daemon.baseUrl}/health`);
  t.is(health.status, 200, '/health answers while draining');
  t.is((await fetch(`${daemon.baseUrl}/v1/ready`)).status, 503);

  const finished = await inFlight;
  t.is(finished.status, 200, 'the in-flight query completes');
  const rows = (await finished.json()) as Array<{ total: unknown }>;
  t.is(rows.length, 1);
  t.is(await daemon.exited, 0);
  t.regex(daemon.output(), /SIGTERM received: shutting down/);
  t.regex(daemon.output(), /runtime stopped/);
});

test.serial('shutdown_timeout bounds the drain: a query still running is interrupted and the process exits 0', async (t) => {
  const directory = writeManifestDirectory({ manifest: `${QUICKSTART_MANIFEST}runtime:\n  shutdown_timeout: 200ms\n`, withQuickstartData: true });
  const daemon = await startDaemon([directory]);
  const inFlight = fetch(`${daemon.baseUrl}/v1/sql`, { method: 'POST', body: 'SELECT count(DISTINCT hash(i)) FROM range(60000000) t(i)' }).then(
    (response) => response.status,
    () => 'connection closed',
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  const started = Date.now();
  daemon.child.kill('SIGTERM');
  t.is(await daemon.exited, 0);
  t.true(Date.now() - started < 5000, 'exits soon after the timeout');
  t.regex(daemon.output(), /shutdown_timeout reached: interrupting queries still running/);
  t.not(await inFlight, 200);
});

test.serial('a second signal exits at once', async (t) => {
  const directory = writeManifestDirectory({ manifest: `${QUICKSTART_MANIFEST}runtime:\n  shutdown_timeout: 30s\n`, withQuickstartData: true });
  const daemon = await startDaemon([directory]);
  fetch(`${daemon.baseUrl}/v1/sql`, { method: 'POST', body: 'SELECT count(DISTINCT hash(i)) FROM range(60000000) t(i)' }).catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 300));
  daemon.child.kill('SIGINT');
  await new Promise((resolve) => setTimeout(resolve, 100));
  daemon.child.kill('SIGINT');
  t.is(await daemon.exited, null);
  t.is(daemon.child.signalCode, 'SIGKILL', 'ended by SIGKILL: process.exit would wait for the engine\'s running statement');
  t.regex(daemon.output(), /second SIGINT: exiting at once/);
});

test.serial('quarryd --check prints the resolved configuration and exits 0; errors exit 1', async (t) => {
  const good = writeManifestDirectory({ manifest: QUICKSTART_MANIFEST, withQuickstartData: true });
  const ok = await runCommand('quarryd', [good, '--check']);
  t.is(ok.code, 0, ok.stderr);
  t.regex(ok.stdout, /is valid/);
  t.regex(ok.stdout, /shutdown_timeout: 30s/);
  const bad = writeManifestDirectory({ manifest: 'runtime:\n  ready_state: soon\n' });
  const failed = await runCommand('quarryd', [bad, '--check']);
  t.is(failed.code, 1);
  t.regex(failed.stderr, /^error \[MANIFEST_INVALID\]: manifest .*quarry\.yaml is invalid:\n {2}- runtime\.ready_state: /);
});

test.serial('output level: -v beats QUARRY_OUTPUT_LEVEL, which beats the manifest', async (t) => {
  const directory = writeManifestDirectory({ manifest: `${QUICKSTART_MANIFEST}runtime:\n  output_level: very_verbose\n`, withQuickstartData: true });
  const fromManifest = await startDaemon([directory]);
  fromManifest.child.kill('SIGTERM');
  await fromManifest.exited;
  t.regex(fromManifest.output(), / DEBUG /, 'very_verbose from the manifest shows debug lines');

  const fromEnvironment = await startDaemon([directory], { env: { QUARRY_OUTPUT_LEVEL: 'info' } });
  fromEnvironment.child.kill('SIGTERM');
  await fromEnvironment.exited;
  t.notRegex(fromEnvironment.output(), / DEBUG /, 'the environment beats the manifest');

  const fromFlag = await startDaemon([directory, '-v'], { env: { QUARRY_OUTPUT_LEVEL: 'info' } });
  fromFlag.child.kill('SIGTERM');
  await fromFlag.exited;
  t.regex(fromFlag.output(), / DEBUG /, 'the flag beats the environment');
});

test.serial('a start-up error names its code and exits 1', async (t) => {
  const directory = writeManifestDirectory({ manifest: 'datasets: []\n' });
  const busy = await startDaemon([directory]);
  const port = new URL(busy.baseUrl).port;
  const clash = await runCommand('quarryd', [directory, '--http', `127.0.0.1:${port}`, '--flight', '127.0.0.1:0']);
  busy.child.kill('SIGTERM');
  await busy.exited;
  t.is(clash.code, 1);
  t.regex(clash.stderr, new RegExp(`error \\[LISTENER_FAILED\\]: cannot listen on 127\\.0\\.0\\.1:${port} \\(--http\\)`));
});
