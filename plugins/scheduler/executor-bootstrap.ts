import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { QuarryError } from '../../core/errors/quarry-error.js';
import type { ClusterNodeOptions } from '../../core/plugins/types.js';
import { NodeClient } from './node/node-client.js';
import { nodeTlsMaterial } from './node/node-credentials.js';
import './errors.js';

/**
 * An executor starts without a manifest: it asks each `--scheduler-address` in turn for the
 * app definition and writes it to a private temporary file to load. Relative paths resolve
 * where the scheduler resolves them when that directory exists here (one machine, or a shared
 * mount), else in the executor's working directory.
 */
export async function fetchAppDefinition(cluster: ClusterNodeOptions, nodeId: string): Promise<{ manifestPath: string; baseDirectory: string }> {
  if (cluster.schedulerAddresses.length === 0) {
    throw new QuarryError('CLUSTER_CONFIG_INVALID', 'an executor without a manifest needs --scheduler-address URL (repeatable) to fetch the app definition from');
  }
  const tls = nodeTlsMaterial(cluster);
  const failures: string[] = [];
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
    } finally {
      client.close();
    }
  }
  throw new QuarryError('CLUSTER_NODE_UNREACHABLE', `no scheduler gave the app definition: ${failures.join('; ')}`);
}
