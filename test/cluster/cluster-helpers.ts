import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { waitForOutput, type Daemon } from '../helpers/daemon.js';
import { repositoryRoot, writeManifestDirectory, type RuntimeSetup } from '../helpers/runtime.js';

/**
 * Starts a scheduler as a real quarryd process without waiting for HTTP. Resolves with the node
 * endpoint (executors need it); `http()` waits for HTTP. A routing scheduler listens before any
 * executor joins; its partitioned datasets are registered when an executor gives their columns.
 */
export async function spawnScheduler(args: string[]): Promise<{ daemon: Daemon; nodeEndpoint: string; http(): Promise<Daemon> }> {
  const daemon = spawnQuarryd(args);
  const nodeEndpoint = (await waitForOutput(daemon, /node listening endpoint=([\d.:]+)/, 30_000))[1]!;
  return {
    daemon,
    nodeEndpoint,
    http: async () => ({ ...daemon, baseUrl: (await waitForOutput(daemon, /HTTP listening endpoint=(https?:\/\/[\d.:]+)/, 60_000))[1]! }),
  };
}

/** Starts quarryd (from source, free HTTP and Flight ports) without waiting for anything; `baseUrl` stays empty. */
export function spawnQuarryd(args: string[]): Daemon {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repositoryRoot, 'cli/quarryd/main.ts'), ...args, '--http', '127.0.0.1:0', '--flight', '127.0.0.1:0'], { cwd: repositoryRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, baseUrl: '', output: () => output, exited: new Promise((resolve) => child.once('exit', resolve)) };
}

export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined && done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Stops every process still running (SIGTERM) and waits for each. */
export async function stopAll(daemons: readonly Daemon[]): Promise<void> {
  for (const daemon of daemons) {
    if (daemon.child.exitCode === null && daemon.child.signalCode === null) daemon.child.kill('SIGTERM');
    await daemon.exited;
  }
}

/**
 * A state directory and a manifest directory for a test cluster; `manifest` gets the state
 * location as a file:// URL. `remove()` deletes both.
 */
export function clusterDirectories(manifest: (stateLocation: string) => string, setup: Pick<RuntimeSetup, 'files' | 'withQuickstartData'> = { withQuickstartData: true }): { state: string; manifest: string; remove(): void } {
  const state = mkdtempSync(path.join(os.tmpdir(), 'quarry-cluster-state-'));
  const manifestDirectory = writeManifestDirectory({ ...setup, manifest: manifest(`${pathToFileURL(state).href}/`) });
  return {
    state,
    manifest: manifestDirectory,
    remove: () => {
      rmSync(state, { recursive: true, force: true });
      rmSync(manifestDirectory, { recursive: true, force: true });
    },
  };
}
