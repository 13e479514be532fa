import { performance } from 'node:perf_hooks';
import type { OutputFormat } from './arguments.js';
import { writeTo } from './output.js';
import { collectResult } from './render/result-collector.js';
import { renderQueryOutput } from './render/result-output.js';
import type { QueryTransport } from './transport/query-transport.js';

export interface RunStatementOptions {
  format: OutputFormat;
  out: NodeJS.WritableStream;
  signal?: AbortSignal;
  maxColumnWidth?: number;
}

/**
 * Runs one statement and prints its result: a box table with types and timing, or the
 * runtime's own JSON / CSV encoding passed through untouched. Errors are thrown for the
 * caller to print (stderr for `sql -e`, the REPL's own output in the REPL).
 */
export async function runStatement(transport: QueryTransport, sql: string, options: RunStatementOptions): Promise<void> {
  const queryOptions = options.signal ? { signal: options.signal } : {};
  if (options.format === 'table') {
    const started = performance.now();
    const result = await transport.queryArrow(sql, queryOptions);
    const collected = await collectResult(result);
    const elapsedSeconds = (performance.now() - started) / 1000;
    const text = renderQueryOutput(collected, {
      elapsedSeconds,
      cacheStatus: result.cacheStatus,
      ...(options.maxColumnWidth === undefined ? {} : { maxColumnWidth: options.maxColumnWidth }),
    });
    await writeTo(options.out, text);
    return;
  }
  const result = await transport.queryText(sql, options.format, queryOptions);
  let last: number | undefined;
  for await (const chunk of result.chunks) {
    if (chunk.length === 0) continue;
    await writeTo(options.out, chunk);
    last = chunk[chunk.length - 1];
  }
  // Keep the shell prompt (or the next statement's output) on its own line.
  if (last !== undefined && last !== 0x0a) await writeTo(options.out, '\n');
}
