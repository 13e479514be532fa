import { performance } from 'node:perf_hooks';
import type { OutputFormat } from './arguments.js';
import { writeTo } from './output.js';
import { collectResult, type CollectedResult } from './render/result-collector.js';
import { Spinner } from './render/spinner.js';
import { renderQueryOutput, servedFromNote, type ResultOutputOptions } from './render/result-output.js';
import type { ArrowQueryResult, QueryOptions, QueryTransport, TextQueryResult } from './transport/query-transport.js';

export interface RunStatementOptions {
  format: OutputFormat;
  out: NodeJS.WritableStream;
  signal?: AbortSignal;
  maxColumnWidth?: number;
  /** Table output: its layout, the terminal's width, whether the footer shows the time. */
  display?: Pick<ResultOutputOptions, 'layout' | 'maxTableWidth' | 'timing'>;
  /** On a terminal: a spinner while the query runs past a second. */
  spinner?: boolean;
  /** Shows table output (a pager for long results on a terminal); default: written to `out`. */
  show?: (text: string) => Promise<void>;
  /** JSON inside a larger document (`-e` with several statements): no line break after it. */
  noTrailingNewline?: boolean;
  /** Written before the first byte of a JSON or CSV result (the `,` between documents in an array). */
  prefix?: string;
  /** Where notes about a JSON or CSV result go (stderr), apart from the result itself. */
  notes?: NodeJS.WritableStream;
}

/** NDJSON has no runtime encoding: the client writes it from the Arrow result with the runtime's own JSON renderers. */
async function ndjsonOf(transport: QueryTransport, sql: string, options: QueryOptions): Promise<TextQueryResult> {
  const { encodeNdjson } = await import('../../core/http/encoders/index.js');
  const result = await transport.queryArrow(sql, options);
  if (!result.schema) return { chunks: (async function* () {})(), cacheStatus: result.cacheStatus, servedFromSource: result.servedFromSource };
  return { chunks: encodeNdjson({ schema: result.schema, batches: result.batches }), cacheStatus: result.cacheStatus, servedFromSource: result.servedFromSource };
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
    const spinner = options.spinner ? new Spinner(options.out) : undefined;
    let collected: CollectedResult;
    let result: ArrowQueryResult;
    try {
      result = await transport.queryArrow(sql, queryOptions);
      collected = await collectResult(result, undefined, spinner && ((received) => spinner.rows(received)));
    } finally {
      spinner?.stop();
    }
    const elapsedSeconds = (performance.now() - started) / 1000;
    const text = renderQueryOutput(collected, {
      elapsedSeconds,
      cacheStatus: result.cacheStatus,
      servedFromSource: result.servedFromSource,
      ...options.display,
      ...(options.maxColumnWidth === undefined ? {} : { maxColumnWidth: options.maxColumnWidth }),
    });
    await (options.show ? options.show(text) : writeTo(options.out, text));
    return;
  }
  const result = options.format === 'ndjson' ? await ndjsonOf(transport, sql, queryOptions) : await transport.queryText(sql, options.format, queryOptions);
  let last: number | undefined;
  let prefix = options.prefix;
  for await (const chunk of result.chunks) {
    if (chunk.length === 0) continue;
    if (prefix !== undefined) {
      await writeTo(options.out, prefix);
      prefix = undefined;
    }
    await writeTo(options.out, chunk);
    last = chunk[chunk.length - 1];
  }
  // Keep the shell prompt (or the next statement's output) on its own line.
  if (last !== undefined && last !== 0x0a && !options.noTrailingNewline) await writeTo(options.out, '\n');
  // JSON and CSV stay machine-readable: the note goes to stderr.
  if (result.servedFromSource && options.notes) await writeTo(options.notes, `Note:${servedFromNote(result.servedFromSource)}\n`);
}
