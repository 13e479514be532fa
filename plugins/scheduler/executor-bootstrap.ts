import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import * as grpc from '@grpc/grpc-js';
import path from 'node:path';
import { QuarryError } from '../../core/errors/quarry-error.js';
import type { ClusterNodeOptions } from '../../core/plugins/types.js';
import { NodeClient } from './node/node-client.js';
import { nodeTlsMaterial } from './node/node-credentials.js';
import './errors.js';

/** How long an executor waits for a scheduler to answer at start-up (schedulers may start after executors). */
export const SCHEDULER_WAIT_MS = 60_000;
const FIRST_RETRY_MS = 250;
const LONGEST_RETRY_MS = 5_000;

export interface FetchOptions {
  /** Told about each failed round (every scheduler asked once), with the wait before the next. */
  readonly onRetry?: (failures: readonly string[], retryInMs: number) => void;
  /** Stops waiting (SIGTERM/SIGINT during start-up). */
  readonly signal?: AbortSignal;
  readonly waitMs?: number;
}

/**
 * An executor starts without a manifest: it asks each `--scheduler-address` in turn for the
 * app definition and writes it to a private temporary file to load. Relative paths resolve
 * where the scheduler resolves them when that directory exists here (one machine, or a shared
 * mount), else in the executor's working directory. While no scheduler can be reached (not
 * started yet, restarting) it asks again with a growing pause, up to `SCHEDULER_WAIT_MS`;
 * a scheduler that answers with an error (a refused certificate, a bad request) fails at once.
 */
export async function fetchAppDefinition(cluster: ClusterNodeOptions, nodeId: string, options: FetchOptions = {}): Promise<{ manifestPath: string; baseDirectory: string }> {
  if (cluster.schedulerAddresses.length === 0) {
    throw new QuarryError('CLUSTER_CONFIG_INVALID', 'an executor without a manifest needs --scheduler-address URL (repeatable) to fetch the app definition from');
  }
  const tls = nodeTlsMaterial(cluster);
  const deadline = Date.now() + (options.waitMs ?? SCHEDULER_WAIT_MS);
  for (let pause = FIRST_RETRY_MS; ; pause = Math.min(pause * 2, LONGEST_RETRY_MS)) {
    const failures: string[] = [];
    let onlyUnreachable = true;
    for (const address of cluster.schedulerAddresses) {
      const client = new NodeClient(address, tls);
      try {
        const definition = await client.getAppDefinition({ node_id: nodeId });
        const directory = mkdtempSync(path.join(os.tmpdir(), 'quarry-executor-'));
        const manifestPath = path.join(directory, 'quarry.yaml');
        writeFileSync(manifestPath, definition.manifest_yaml, { mode: 0o600 });
        // The copy lives as long as the executor (kept while it runs, for operators to read).
        process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
        return { manifestPath, baseDirectory: existsSync(definition.base_directory) ? definition.base_directory : process.cwd() };
      } catch (error) {
        failures.push((error as Error).message);
        if (!unreachable(error)) onlyUnreachable = false;
      } finally {
        client.close();
      }
    }
    const waited = Date.now() + pause > deadline;
    if (!onlyUnreachable || waited || options.signal?.aborted) {
      const why = onlyUnreachable ? (options.signal?.aborted ? ' (start-up interrupted)' : ` (waited ${Math.round((options.waitMs ?? SCHEDULER_WAIT_MS) / 1000)} s for one to answer)`) : '';
      throw new QuarryError('CLUSTER_NODE_UNREACHABLE', `no scheduler gave the app definition${why}: ${failures.join('; ')}`);
    }
    options.onRetry?.(failures, pause);
    await sleep(pause, undefined, { signal: options.signal }).catch(() => undefined);
  }
}

/** A scheduler that could not be reached at all (nothing listening yet, a name not resolving yet), as opposed to one that refused. */
function unreachable(error: unknown): boolean {
  const cause = (error as { cause?: { code?: number; details?: string } }).cause;
  if (cause?.code !== grpc.status.UNAVAILABLE && cause?.code !== grpc.status.DEADLINE_EXCEEDED) return false;
  return cause.code === grpc.status.DEADLINE_EXCEEDED || /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ETIMEDOUT/.test(cause.details ?? '');
}
