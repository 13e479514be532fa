import os from 'node:os';
import { STAGE } from '../../core/hooks/stages.js';
import type { ManifestSectionSlice } from '../../core/manifest/slice.js';
import { isConfigured } from '../../core/manifest/presence.js';
import { openObjectStore } from '../../core/object-store/open-object-store.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import type { Manifest } from '../../core/manifest/types.js';
import { AssignmentLoop } from './assignment-loop.js';
import { checkClusterManifest, clusterRole, tableName, type PartitionedDataset } from './cluster-config.js';
import type { NodeRole } from './cluster-document.js';
import { ClusterState } from './cluster-state.js';
import './errors.js';
import { Membership } from './membership.js';
import { ExecutorAgent, ownedRowsSql } from './executor-agent.js';
import { nodeTlsMaterial } from './node/node-credentials.js';
import { executorProtocolService, nodeProtocolService, startNodeServer, type NodeServer } from './node/node-server.js';
import { ExecutorClient } from './node/node-client.js';
import { WriteLog } from './writes/write-log.js';
import { keyRules } from '../../core/engine/acceleration/refresh-statements.js';
import { nodePeerAuthentication } from './node/node-peer.js';
import { advertisedEndpoint } from './node/advertised-endpoint.js';
import { executorConnector, type ExecutorConnector } from './routing/executor-client.js';
import type { FlightServiceParts } from '../../core/flight/flight-service.js';
import { schedulerNodeHandlers } from './scheduler-node.js';
import { clusterSummary, nodeReports, registerReadinessGate, reportsOf, type NodeReport } from './operations.js';
import { ClusterSource, PARTITIONS_HEADER } from './routing/cluster-source.js';
import { ClusterWriteTarget } from './routing/cluster-writes.js';
import { averageFunction } from './routing/average.js';
import { PushdownRouter } from './routing/pushdown-router.js';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { schedulerSchema, type SchedulerConfig } from './schema.js';

export const SCHEDULER_PLUGIN_NAME = 'scheduler';

const slices: ManifestSectionSlice[] = [{ path: 'runtime.scheduler', schema: schedulerSchema, secretFields: ['params.*'] }];

/**
 * Cluster mode. A scheduler (`--role scheduler`, or a manifest with `runtime.scheduler`) keeps
 * the shared cluster document in `state_location`: it joins as a member, heartbeats, and every
 * `partition_assignment_interval` discovers the partitions of each accelerated dataset and
 * assigns new and orphaned ones to live executors by compare-and-swap.
 */
export function createSchedulerPlugin(): QuarryPlugin {
  return {
    name: SCHEDULER_PLUGIN_NAME,
    manifest: slices,
    apply(runtime) {
      let role: NodeRole | undefined;
      let partitioned: PartitionedDataset[] = [];
      let state: ClusterState | undefined;
      let membership: Membership | undefined;
      let loop: AssignmentLoop | undefined;
      let nodeServer: NodeServer | undefined;
      let agent: ExecutorAgent | undefined;
      let nodeFlight: FlightServiceParts | undefined;
      let connect: ExecutorConnector | undefined;
      let routed = false;
      const writeTargets: ClusterWriteTarget[] = [];
      const executorClients = new Map<string, ExecutorClient>();
      const lostRaces = runtime.metrics.counter('scheduler_state_conflicts', { description: 'Writes of the shared cluster document that lost a compare-and-swap race and were retried' });
      // Partitioned datasets this scheduler reads from its executors, by lower-case name.
      const sources = new Map<string, ClusterSource>();
      // Executors: each partitioned dataset's refresh_check_interval, run by the agent.
      const refreshIntervals = new Map<string, number>();
      const router = new PushdownRouter({
        engine: () => runtime.engine,
        sources,
        log: runtime.log,
        pushed: runtime.metrics.counter('scheduler_pushdown_queries', { description: 'Queries a scheduler answered by pushing them into its executors, by mode: whole (one executor ran the query), union, top-k, aggregate (partial aggregates combined)' }),
      });

      // A partitioned dataset on a scheduler reads from the executors that own its partitions.
      runtime.registerConnector({
        schemes: ['cluster'],
        resolve(dataset) {
          const entry = partitioned.find((candidate) => candidate.name === dataset.location);
          if (entry === undefined || state === undefined || connect === undefined) throw new QuarryError('CLUSTER_CONFIG_INVALID', `dataset "${dataset.name}": from: cluster: is set by a scheduler for its partitioned datasets, not written in a manifest`);
          // Buckets of filter values are computed over literals: no live dataset needs reading.
          const source = new ClusterSource(entry, state, (sql) => runtime.engine.runInternal(sql, [], { readLive: false }), runtime.log, connect);
          sources.set(entry.name.toLowerCase(), source);
          return source;
        },
      });

      runtime.hooks.config.tapPromise({ name: SCHEDULER_PLUGIN_NAME }, async (manifest) => {
        const hasSection = isConfigured(manifest, 'runtime.scheduler');
        role = clusterRole(runtime.cluster, hasSection);
        const checked = checkClusterManifest(manifest, role, hasSection);
        for (const warning of checked.warnings) runtime.log.warn(warning);
        partitioned = checked.datasets;
        // Without a node listener no executor can join, so the scheduler keeps its datasets local.
        routed = role === 'scheduler' && runtime.cluster.nodeBindAddress !== undefined;
        if (routed) {
          // Queries over one partitioned dataset run in the executors where that is safe (routing/pushdown-router.ts).
          // Tapped on a routing scheduler only: elsewhere query.instead stays untapped and costs no query anything.
          runtime.hooks.query.instead.tapPromise({ name: SCHEDULER_PLUGIN_NAME, stage: STAGE.ROUTE }, async (query) => (state !== undefined ? router.answer(query) : undefined));
          return routedThroughExecutors(manifest, partitioned);
        }
        if (role !== 'executor') return manifest;
        // An executor loads no rows until a scheduler says what it owns; its agent then reloads
        // with the owned share (and on the dataset's refresh_check_interval, with that share).
        const names = new Set(partitioned.map((dataset) => dataset.name));
        return {
          ...manifest,
          datasets: manifest.datasets.map((dataset) => {
            const entry = partitioned.find((candidate) => candidate.name === dataset.name);
            if (!names.has(dataset.name) || entry === undefined || dataset.acceleration === undefined) return dataset;
            // The agent refreshes the owned share on the dataset's own interval (the engine would reload the empty share).
            if (dataset.acceleration.refresh_check_interval !== undefined) refreshIntervals.set(dataset.name, dataset.acceleration.refresh_check_interval);
            return { ...dataset, acceleration: { ...dataset.acceleration, refresh_sql: ownedRowsSql(entry, []), refresh_check_interval: undefined } };
          }),
        };
      });

      registerReadinessGate(runtime.http, { isScheduler: () => role === 'scheduler', state: () => state });
      runtime.http.get('/v1/cluster', async (_request, reply) => {
        if (state === undefined) return reply.status(404).send({ error: { code: 'NOT_FOUND', message: '/v1/cluster is served by a scheduler (--role scheduler)' } });
        return { nodes: await nodeReports(state) };
      });
      // What /v1/status shows on a scheduler: one `cluster` line listing live nodes and what they own.
      let reports: NodeReport[] = [];
      runtime.metrics.gauge('node_status', { description: 'Cluster nodes as this node last saw them: 1 live, 0 heartbeat expired' }, () =>
        reports.map((report) => ({ value: report.live ? 1 : 0, attributes: { node_id: report.node_id, role: report.role } })));
      runtime.metrics.gauge('scheduler_active_executors_count', { description: 'Executors whose heartbeat had not expired at the last assignment round' }, () =>
        loop?.last === undefined ? [] : [{ value: loop.last.liveExecutors.length }]);
      runtime.metrics.gauge('scheduler_executor_assignments', { description: 'Partitions each executor owns, as of the last assignment round' }, () => {
        const last = loop?.last;
        if (last === undefined) return [];
        const counts = new Map<string, number>(last.liveExecutors.map((executor) => [executor, 0]));
        for (const dataset of Object.values(last.document.datasets)) {
          for (const partition of Object.values(dataset.partitions)) if (partition.owner !== null) counts.set(partition.owner, (counts.get(partition.owner) ?? 0) + 1);
        }
        return [...counts].map(([executor, value]) => ({ value, attributes: { executor } }));
      });

      runtime.hooks.startup.tapPromise({ name: SCHEDULER_PLUGIN_NAME }, async () => {
        if (role === 'executor') {
          const nodeId = runtime.cluster.nodeAdvertiseAddress ?? `${os.hostname()}-${process.pid}`;
          const tls = nodeTlsMaterial(runtime.cluster);
          // Schedulers scan and write through the executor's node listener: the Flight SQL
          // service, for cluster peers only (mTLS); the public Flight listener keeps its auth.
          nodeFlight = await runtime.flightService({ authenticate: nodePeerAuthentication(tls) });
          // Beside Flight SQL, `quarry.cluster.Executor` takes writes a scheduler has recorded in
          // the write log. Peers are trusted (mTLS): a write's rows come in one message, uncapped.
          const executorService = executorProtocolService({
            applyWrite: (request) => {
              if (agent === undefined) return Promise.reject(new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `executor ${nodeId} is starting`));
              return agent.applyWrite(request);
            },
          }, runtime.log);
          nodeServer = await startNodeServer({ address: runtime.cluster.nodeBindAddress ?? '127.0.0.1:0', tls, services: [nodeFlight, executorService], serverOptions: { ...nodeFlight.serverOptions, 'grpc.max_receive_message_length': -1 } });
          const nodeEndpoint = advertisedEndpoint(nodeServer.endpoint, runtime.cluster.nodeAdvertiseAddress);
          runtime.reportListener({ name: 'node', endpoint: () => nodeEndpoint, status: () => 'Ready' });
          runtime.log.info('node listening', { endpoint: nodeServer.endpoint, advertised: nodeEndpoint, tls: tls === undefined ? 'none' : 'mtls' });
          if (runtime.cluster.nodeBindAddress === undefined) runtime.log.info('the node listener is on loopback (no --node-bind-address): schedulers on other machines cannot reach this executor');
          agent = new ExecutorAgent({
            nodeId,
            // Beats start once the runtime listens (its datasets are registered by then).
            nodeEndpoint: () => (runtime.boundEndpoints().http === '' ? '' : nodeEndpoint),
            schedulerAddresses: runtime.cluster.schedulerAddresses,
            tls,
            datasets: partitioned,
            engine: runtime.engine,
            log: runtime.log,
            ttlMs: 3_000,
            keyRules: (name) => keyRules(runtime.manifest.datasets.find((dataset) => dataset.name === name)!),
            refreshIntervals,
          });
          agent.start();
          runtime.hooks.query.before.tapPromise({ name: SCHEDULER_PLUGIN_NAME }, async (query) => {
            const expected = query.inbound?.headers[PARTITIONS_HEADER];
            if (expected === undefined || agent === undefined) return;
            const { dataset, partitions, exact } = JSON.parse(expected) as { dataset: string; partitions: string[]; exact?: boolean };
            const missing = agent.missing(dataset, partitions);
            if (missing.length > 0) {
              throw new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `executor ${nodeId} does not hold ${missing.length} partition(s) of dataset "${dataset}" yet: ${missing.slice(0, 10).join(', ')} (loading after a reassignment)`);
            }
            // A scan without the partition predicate: the table must hold exactly these partitions until it ends.
            if (exact === true) {
              if (!agent.gate.admit(dataset, partitions)) {
                throw new QuarryError('CLUSTER_SHARE_CHANGING', `executor ${nodeId} cannot scan exactly ${partitions.length} partition(s) of dataset "${dataset}": its table holds others or is reloading; send the scan with its partition predicate`);
              }
              query.state.set(SCHEDULER_PLUGIN_NAME, dataset);
            }
          });
          runtime.hooks.query.after.tapPromise({ name: SCHEDULER_PLUGIN_NAME }, async (query) => {
            const admitted = query.state.get(SCHEDULER_PLUGIN_NAME);
            if (typeof admitted === 'string') agent?.gate.release(admitted);
          });
          runtime.hooks.datasets.loaded.tapPromise({ name: SCHEDULER_PLUGIN_NAME }, async () => {
            // The first load (no rows) finished: take the owned share without waiting a beat.
            void agent?.reload();
          });
          // On an executor, /v1/status shows its role and the partitions it owns.
          runtime.reportListener({
            name: 'cluster',
            endpoint: () => `${nodeId} (executor${Object.entries(agent?.owned ?? {}).filter(([, owned]) => owned.length > 0).map(([dataset, owned]) => `, ${owned.length} ${dataset}`).join('')})`,
            status: () => (agent?.connected ? 'Ready' : 'Initializing'),
          });
          runtime.log.info('cluster executor started', { node_id: nodeId, schedulers: runtime.cluster.schedulerAddresses.join(','), partitioned_datasets: partitioned.length });
          return;
        }
        if (role !== 'scheduler') return;
        const config = runtime.section<NonNullable<SchedulerConfig>>('runtime.scheduler')!;
        const store = openObjectStore(config.state_location, config.params ?? {}, runtime.source.directory);
        state = new ClusterState(store, { onLostRace: () => lostRaces.add(1) });
        const writeLog = new WriteLog(store);
        const nodeId = runtime.cluster.nodeAdvertiseAddress ?? `${os.hostname()}:${process.pid}`;
        // A heartbeat lives one assignment interval: an executor that stops beating loses its
        // partitions at the latest one interval after its last beat plus one round.
        membership = new Membership({ state, nodeId, role: 'scheduler', address: nodeId, ttlMs: config.partition_assignment_interval, log: runtime.log });
        await membership.start();
        if (runtime.cluster.nodeBindAddress !== undefined) {
          const handlers = schedulerNodeHandlers({
            state,
            writeLog,
            manifestFile: runtime.source.file,
            baseDirectory: runtime.source.directory,
            heartbeatTtlMs: config.partition_assignment_interval,
            // An executor's share changed (a refresh, a write through another scheduler): cached answers from it go.
            onDataChanged: (dataset) => {
              runtime.hooks.cache.invalidate.promise({ datasets: [dataset.toLowerCase()], reason: 'refresh' }).catch((error: unknown) => runtime.log.warn('invalidating cached results failed', { dataset, error: (error as Error).message }));
            },
          });
          nodeServer = await startNodeServer({
            address: runtime.cluster.nodeBindAddress,
            tls: nodeTlsMaterial(runtime.cluster),
            services: [nodeProtocolService(handlers, runtime.log)],
          });
          const endpoint = nodeServer.endpoint;
          runtime.reportListener({ name: 'node', endpoint: () => endpoint, status: () => 'Ready' });
          runtime.log.info('node listening', { endpoint, tls: runtime.cluster.allowInsecureConnections && runtime.cluster.mtlsCertificateFile === undefined ? 'none' : 'mtls' });
        } else {
          runtime.log.warn('this scheduler has no node listener (no --node-bind-address): executors cannot reach it; it only runs assignment rounds');
        }
        if (routed) {
          // A pushed-down avg() is finished with this function (see routing/average.ts).
          runtime.engine.addConnectionInitializer(async (connection) => connection.registerScalarFunction(averageFunction()));
        }
        // Writes to a read_write partitioned dataset go to the owners of each row's partition.
        // Every partitioned dataset gets a target, read-only ones too: an INSERT into one then
        // binds (as into an accelerated table on a single node) and the core's policy refuses
        // it as a single node does (403 WRITE_NOT_ALLOWED), instead of failing to bind (400).
        if (routed) {
          // Only a routing scheduler (one with a node listener) talks to executors.
          const tls = nodeTlsMaterial(runtime.cluster);
          connect = executorConnector(tls);
          const executor = (address: string) => {
            let client = executorClients.get(address);
            if (client === undefined) executorClients.set(address, (client = new ExecutorClient(address, tls)));
            return client;
          };
          for (const entry of partitioned) {
            const target = new ClusterWriteTarget({ dataset: entry, state, writeLog, log: runtime.log, connect, executor });
            writeTargets.push(target);
            runtime.engine.setWriteTarget(entry.name, target);
          }
        }
        loop = new AssignmentLoop({
          state,
          datasets: partitioned,
          limits: { maxAssignmentsPerRound: config.max_partition_assignments_per_interval, maxPartitionsPerExecutor: config.max_partitions_per_executor },
          intervalMs: config.partition_assignment_interval,
          discoveryTimeoutMs: config.partition_discovery_timeout,
          query: (sql) => runtime.engine.runInternal(sql),
          // Routed, a scheduler discovers expression partitions from the live copy of the source.
          discoveryTable: (dataset) => (routed ? tableName(dataset.discoveryName) : dataset.table),
          readable: (name) => {
            const entry = partitioned.find((candidate) => candidate.name === name);
            if (entry === undefined || entry.keys.every((key) => key.kind === 'bucket')) return true; // buckets need no data
            return runtime.engine.dataset(routed ? entry.discoveryName : entry.name)?.state === 'ready';
          },
          log: runtime.log,
          onRound: (result) => {
            reports = reportsOf(result.document, new Set([...result.liveExecutors, nodeId]));
          },
        });
        loop.start();
        runtime.reportListener({ name: 'cluster', endpoint: () => clusterSummary(reports), status: () => (reports.some((report) => report.role === 'executor' && report.live) ? 'Ready' : 'Initializing') });
        runtime.log.info('cluster scheduler started', { node_id: nodeId, state_location: config.state_location, partitioned_datasets: partitioned.length });
      });

      runtime.hooks.shutdown.stop.tapPromise({ name: SCHEDULER_PLUGIN_NAME, stage: STAGE.STOP_PLUGINS }, async () => {
        await agent?.stop();
        for (const target of writeTargets) target.close();
        for (const client of executorClients.values()) client.close();
        await nodeServer?.close();
        nodeFlight?.close();
        await loop?.stop();
        await membership?.stop().catch(() => {});
        await state?.store.close?.();
      });
    },
  };
}

/**
 * A scheduler holds no partitioned data: each partitioned dataset becomes `from: cluster:<name>`
 * (read live from the executors), and one with expression keys also gets a live copy of its
 * source, `cluster_source.<name>`, that partition discovery reads (SELECT DISTINCT).
 */
function routedThroughExecutors(manifest: Manifest, partitioned: readonly PartitionedDataset[]): Manifest {
  const datasets = manifest.datasets.flatMap((dataset) => {
    const entry = partitioned.find((candidate) => candidate.name === dataset.name);
    if (entry === undefined) return [dataset];
    // access stays as written: a read_write dataset takes writes, routed to the owning executors.
    const routed = { ...dataset, from: `cluster:${dataset.name}`, params: {}, acceleration: undefined };
    if (entry.keys.every((key) => key.kind === 'bucket')) return [routed];
    return [{ ...dataset, name: entry.discoveryName, acceleration: undefined, access: 'read' as const }, routed];
  });
  return { ...manifest, datasets };
}
