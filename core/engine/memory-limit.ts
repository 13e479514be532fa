import { readFileSync } from 'node:fs';
import os from 'node:os';

/**
 * The memory this process may use: the cgroup limit when one is set (containers), else the
 * machine's total memory. `runtime.query.memory_limit` defaults to 90% of it.
 */
export function availableMemoryBytes(): { bytes: number; source: string } {
  const total = os.totalmem();
  for (const [file, source] of [
    ['/sys/fs/cgroup/memory.max', 'cgroup v2'],
    ['/sys/fs/cgroup/memory/memory.limit_in_bytes', 'cgroup v1'],
  ] as const) {
    const limit = readLimit(file);
    // cgroup v1 reports "no limit" as a huge number; anything above physical memory means none.
    if (limit !== undefined && limit > 0 && limit < total) return { bytes: limit, source };
  }
  return { bytes: total, source: 'total memory' };
}

function readLimit(file: string): number | undefined {
  try {
    const text = readFileSync(file, 'utf8').trim();
    if (text === 'max') return undefined;
    const value = Number(text);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function defaultMemoryLimitBytes(): number {
  return Math.floor(availableMemoryBytes().bytes * 0.9);
}
