import type { FastifyInstance } from 'fastify';
import type { ClusterDocument, NodeRole } from './cluster-document.js';
import type { ClusterState } from './cluster-state.js';

/** One node as `/v1/cluster` and `/v1/status` show it. */
export interface NodeReport {
  readonly node_id: string;
  readonly role: NodeRole;
  readonly address: string;
  readonly live: boolean;
  /** Partitions owned, by dataset (executors). */
  readonly partitions: Readonly<Record<string, number>>;
}

export async function nodeReports(state: ClusterState): Promise<NodeReport[]> {
  const document = await state.read();
  const live = new Set([...(await state.liveMembers(document, 'executor')), ...(await state.liveMembers(document, 'scheduler'))]);
  return reportsOf(document, live);
}

export function reportsOf(document: ClusterDocument, live: ReadonlySet<string>): NodeReport[] {
  return Object.entries(document.members).sort(([a], [b]) => a.localeCompare(b)).map(([id, member]) => {
    const partitions: Record<string, number> = {};
    for (const [name, dataset] of Object.entries(document.datasets)) {
      const owned = Object.values(dataset.partitions).filter((partition) => partition.owner === id).length;
      if (owned > 0) partitions[name] = owned;
    }
    return { node_id: id, role: member.role, address: member.address, live: live.has(id), partitions };
  });
}

/** `node-id (role, 4 orders + 2 events)` per live node: the endpoint text of the `cluster` line in `/v1/status`. */
export function clusterSummary(reports: readonly NodeReport[]): string {
  return reports.filter((report) => report.live).map((report) => {
    const owned = Object.entries(report.partitions).map(([dataset, count]) => `${count} ${dataset}`).join(' + ');
    return `${report.node_id} (${report.role}${owned ? `, ${owned}` : ''})`;
  }).join('; ');
}

/**
 * `/v1/ready?min_ready_executors=N&min_ready_executors_percent=P` on a scheduler: the quorum is
 * checked here first (a 503 when it is not met), then the core's own readiness answers. Bad
 * values, or the gate on a node that is not a scheduler, answer 400.
 */
export function registerReadinessGate(app: FastifyInstance, options: { isScheduler: () => boolean; state: () => ClusterState | undefined }): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'GET' || !request.url.startsWith('/v1/ready')) return;
    const query = request.query as Record<string, string | undefined>;
    const count = query['min_ready_executors'];
    const percent = query['min_ready_executors_percent'];
    if (count === undefined && percent === undefined) return;
    const text = (message: string, status: number) => reply.status(status).type('text/plain; charset=utf-8').send(message);
    if (!options.isScheduler()) return text('min_ready_executors and min_ready_executors_percent apply only to a scheduler (--role scheduler)', 400);
    const minimum = count === undefined ? 0 : Number(count);
    if (!Number.isInteger(minimum) || minimum < 0) return text(`min_ready_executors must be a whole number of 0 or more, got "${count}"`, 400);
    const minimumPercent = percent === undefined ? 0 : Number(percent);
    if (!Number.isFinite(minimumPercent) || minimumPercent < 0 || minimumPercent > 100) return text('min_ready_executors_percent must be between 0 and 100', 400);
    const state = options.state();
    if (state === undefined) return text('not ready', 503);
    const document = await state.read();
    const known = Object.values(document.members).filter((member) => member.role === 'executor').length;
    const live = (await state.liveMembers(document, 'executor')).length;
    const percentLive = known === 0 ? 0 : (live / known) * 100;
    if (live < minimum || (minimumPercent > 0 && percentLive < minimumPercent)) return text('not ready', 503);
    return undefined; // quorum met: the core's readiness decides
  });
}
