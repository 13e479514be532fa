import type { TestFn } from 'ava';
import { flightEndpointOf, startDaemon, waitForOutput, type Daemon } from '../helpers/daemon.js';
import { pythonClients, runPythonCases, type CaseOutcome } from '../helpers/python-clients.js';
import { writeManifestDirectory } from '../helpers/runtime.js';

/** What every conformance file runs against: a real quarryd with API keys and one writable, accelerated dataset. */
export const RW_KEY = 'conformance-writer-key';
export const RO_KEY = 'conformance-reader-key';
const MANIFEST = `
version: v2
kind: Spicepod
name: conformance
datasets:
  - from: file:data/events.csv
    name: events
    access: read_write
    acceleration:
      enabled: true
    columns:
      - name: label
        description: What happened, in words
runtime:
  auth:
    api-key:
      keys:
        - ${RW_KEY}:rw
        - ${RO_KEY}
`;

export interface ConformanceDaemon {
  daemon: Daemon;
  baseUrl: string;
  flightEndpoint: string;
  metricsUrl: string;
}

export async function startConformanceDaemon(): Promise<ConformanceDaemon> {
  const directory = writeManifestDirectory({ manifest: MANIFEST, files: { 'data/events.csv': 'id,label\n1,one\n2,two\n' } });
  const daemon = await startDaemon([directory, '--metrics', '127.0.0.1:0']);
  const flightEndpoint = await flightEndpointOf(daemon);
  const metricsUrl = (await waitForOutput(daemon, /Metrics listening endpoint=(http:\/\/[\d.:]+\/metrics)/))[1]!;
  await waitForOutput(daemon, /runtime ready/);
  return { daemon, baseUrl: daemon.baseUrl, flightEndpoint, metricsUrl };
}

/**
 * Declares one ava test per Python case: the script runs once (one interpreter start, one
 * import of the client library), its cases in order, against one daemon.
 */
export async function declarePythonCases(test: TestFn, options: { title: string; script: string; cases: readonly string[]; args: (daemon: ConformanceDaemon) => string[] }): Promise<void> {
  const clients = await pythonClients();
  // Under CI the independent clients must run: a missing one fails rather than skips.
  if (!clients.available && process.env['CI']) throw new Error(`the conformance suite cannot run: ${clients.reason}`);
  if (!clients.available) console.warn(`${options.title} conformance skipped: ${clients.reason}`);
  const declare = clients.available ? test : test.skip;
  let running: ConformanceDaemon | undefined;
  let run: Promise<{ outcomes: Map<string, CaseOutcome>; stderr: string }> | undefined;
  test.before(async () => {
    if (!clients.available) return;
    running = await startConformanceDaemon();
    run = runPythonCases(options.script, [...options.args(running), ...options.cases]);
  });
  test.after.always(async () => {
    running?.daemon.child.kill('SIGTERM');
    await running?.daemon.exited;
  });
  for (const name of options.cases) {
    declare(`${options.title}: ${name.replaceAll('_', ' ')}`, async (t) => {
      const { outcomes, stderr } = await run!;
      const outcome = outcomes.get(name);
      t.truthy(outcome, `the case did not report (python stderr: ${stderr.slice(-2000)})`);
      t.log(`${outcome?.seconds ?? '?'} s in python`);
      t.true(outcome?.ok, outcome?.error);
    });
  }
}
