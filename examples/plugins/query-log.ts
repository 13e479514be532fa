/**
 * A query observer: one JSON line per finished query (who, which door, how it was answered,
 * rows, time) appended to a file. Observers tap `query.after` at STAGE.OBSERVE_LAST and must
 * not throw: the query has already been answered.
 *
 *   plugins:
 *     - from: ./query-log.ts
 *       params: { file: ./queries.ndjson }
 */
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { definePlugin, STAGE } from 'quarry';
import type { QuarryPlugin } from 'quarry/plugin';

const NAME = 'query-log';

export default function queryLog(params: Record<string, unknown>): QuarryPlugin {
  if (typeof params['file'] !== 'string') throw new Error('params.file: give the file to append query lines to');
  const file = params['file'];

  return definePlugin({
    name: NAME,
    apply(runtime) {
      // Relative to the manifest's folder, like every path in a manifest.
      const target = path.resolve(runtime.source.directory, file);
      let writes = Promise.resolve();
      runtime.hooks.query.after.tap({ name: NAME, stage: STAGE.OBSERVE_LAST }, (query, outcome) => {
        const line = JSON.stringify({
          at: outcome.endTime.toISOString(),
          caller: query.principal.id,
          protocol: query.protocol,
          sql: query.sql,
          status: outcome.status,
          cache: outcome.cacheStatus ?? null,
          rows: outcome.rows,
          ms: Math.round(outcome.durationMs),
          error: outcome.error?.code ?? null,
        });
        // Appends one after another, off the query's path; a failed write is logged, never thrown.
        writes = writes.then(() => appendFile(target, `${line}\n`)).catch((error: unknown) => {
          runtime.log.warn('query log write failed', { file: target, error: (error as Error).message });
        });
      });
      // Lines still being written are flushed before the process exits.
      runtime.hooks.shutdown.stop.tapPromise({ name: NAME, stage: STAGE.STOP_PLUGINS }, () => writes);
    },
  });
}
