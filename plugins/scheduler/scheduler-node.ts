import type { ClusterState } from './cluster-state.js';
import { partitionsOwnedBy } from './cluster-document.js';
import type { NodeHandlers } from './node/node-server.js';
import type { PartitionValue } from './partition-keys.js';
import { appDefinitionYaml } from './app-definition.js';
import type { WriteLog } from './writes/write-log.js';

/**
 * What a scheduler answers on its node listener. Executors never touch the state store: a
 * scheduler writes an executor's heartbeat object for it (every scheduler it beats to does,
 * so the record outlives any one scheduler) and answers with the partitions it owns.
 */
export function schedulerNodeHandlers(options: { state: ClusterState; writeLog: WriteLog; manifestFile: string; baseDirectory: string; heartbeatTtlMs: number; onDataChanged?: (dataset: string) => void }): NodeHandlers {
  const { state, heartbeatTtlMs } = options;
  const versions = new DataVersions(options.onDataChanged);
  return {
    async getAppDefinition() {
      return { manifest_yaml: await appDefinitionYaml(options.manifestFile), base_directory: options.baseDirectory, heartbeat_ttl_ms: heartbeatTtlMs };
    },
    async heartbeat(request) {
      await state.writeHeartbeat({ node_id: request.node_id, role: 'executor', address: request.node_endpoint, written_at_ms: Date.now(), ttl_ms: heartbeatTtlMs });
      versions.seen(request.node_id, request.data_versions);
      let document = await state.read();
      const member = document.members[request.node_id];
      if (member?.role !== 'executor' || member.address !== request.node_endpoint) document = await state.join(request.node_id, 'executor', request.node_endpoint);
      const partitions: Record<string, PartitionValue[][]> = {};
      for (const dataset of Object.keys(document.datasets)) partitions[dataset] = partitionsOwnedBy(document, dataset, request.node_id);
      return { heartbeat_ttl_ms: heartbeatTtlMs, revision: document.revision, partitions };
    },
    // Executors read the write log through a scheduler: the state store stays the schedulers' alone.
    async listWrites(request) {
      return { entries: await options.writeLog.entries(request.dataset, new Set(request.partitions)) };
    },
    async readWrite(request) {
      return options.writeLog.body(request.dataset, request.id);
    },
  };
}

/**
 * The data versions executors report in heartbeats. When an executor's count for a dataset
 * moves (it refreshed its share, or applied a write that came through another scheduler),
 * results this scheduler cached from that dataset may be out of date: `changed` is told. The
 * first report of an executor only records (its first load is rows this scheduler never read).
 */
export class DataVersions {
  readonly #known = new Map<string, Readonly<Record<string, number>>>();
  readonly #changed: ((dataset: string) => void) | undefined;

  constructor(changed?: (dataset: string) => void) {
    this.#changed = changed;
  }

  seen(nodeId: string, versions: Readonly<Record<string, number>> | undefined): void {
    if (versions === undefined) return;
    const before = this.#known.get(nodeId);
    this.#known.set(nodeId, versions);
    if (before === undefined) return;
    for (const [dataset, version] of Object.entries(versions)) {
      if (before[dataset] !== version) this.#changed?.(dataset);
    }
  }
}
