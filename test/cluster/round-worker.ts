/**
 * A scheduler's assignment rounds in a process of its own (for the cross-process test in
 * cluster-state.test.ts): runs rounds against STORE_ROOT until every partition is owned and
 * prints, as JSON on stdout, the assignments its own committed writes made.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FileObjectStore } from '../../core/object-store/file-object-store.js';
import { runAssignmentRound } from '../../plugins/scheduler/assignment-round.js';
import type { OwnershipChange } from '../../plugins/scheduler/assignment.js';
import { ClusterState } from '../../plugins/scheduler/cluster-state.js';

const state = new ClusterState(new FileObjectStore(process.env['STORE_ROOT']!));
const count = Number(process.env['PARTITIONS']);
const discovered = [{ name: 'orders', partitionBy: [`bucket(${count}, id)`], partitions: Array.from({ length: count }, (_, index) => [index]) }];
const assigned: OwnershipChange[] = [];
// Signal readiness, then wait for the go file so the processes' rounds overlap.
writeFileSync(path.join(process.env['STORE_ROOT']!, `ready-${process.pid}`), '');
while (!existsSync(process.env['GO_FILE']!)) await new Promise((resolve) => setTimeout(resolve, 5));
let failedRounds = 0;
for (let round = 0; round < 200; round++) {
  try {
    const result = await runAssignmentRound(state, discovered, { maxAssignmentsPerRound: 2, maxPartitionsPerExecutor: 1000 });
    assigned.push(...result.assigned);
    if (result.unassigned === 0 && result.assigned.length === 0 && round > 0) break;
  } catch {
    failedRounds++;
  }
}
process.stdout.write(JSON.stringify({ assigned, failedRounds }));
