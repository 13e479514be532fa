import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { EngineSource } from './sources/connector.js';

/** Past this many directory entries the size is not worth the start of a load: unknown. */
const MAX_ENTRIES = 100_000;

/**
 * The size in bytes of the local files an engine source reads (its files, its directories'
 * files), as the total of a load's progress; undefined when it reads none or there are too
 * many to count quickly.
 */
export function localFileBytes(source: EngineSource): number | undefined {
  let bytes = 0;
  let entries = 0;
  let found = false;
  const add = (file: string): boolean => {
    if (++entries > MAX_ENTRIES) return false;
    try {
      const stats = statSync(file);
      if (stats.isFile()) {
        bytes += stats.size;
        found = true;
      } else if (stats.isDirectory()) {
        for (const name of readdirSync(file)) if (!add(path.join(file, name))) return false;
      }
    } catch {
      // gone or unreadable: the engine's read reports it
    }
    return true;
  };
  for (const file of [...source.allowedPaths, ...source.allowedDirectories]) if (!add(file)) return undefined;
  return found ? bytes : undefined;
}
