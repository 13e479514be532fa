import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteLiteral } from './sql-text.js';

/**
 * DuckDB's serialised logical plan of a statement, with source positions removed so that
 * whitespace and layout do not change it (keyword case and `main.t` vs `t` already do not).
 * json_serialize_plan takes only a constant string, hence the inlined literal.
 */
export async function logicalPlanText(connection: DuckDBConnection, sql: string): Promise<string> {
  // run() answers a materialised result whose one chunk is read synchronously: one engine
  // round trip, where runAndReadAll takes two (a new text's plan is on the plan-key path).
  const result = await connection.run(`SELECT json_serialize_plan(${quoteLiteral(sql)})`);
  const text = result.chunkCount > 0 ? String(result.getChunk(0).getColumnValues(0)[0] ?? '') : '';
  // A plan opens with its error flag: only a failure is parsed (for its message), not every plan of a few KiB.
  if (!text.startsWith('{"error":false,')) {
    const parsed = JSON.parse(text) as { error?: boolean; error_message?: string };
    if (parsed.error) throw new Error(`Binder Error: ${parsed.error_message ?? 'the statement has no logical plan'}`);
  }
  return text.replace(/"query_location":\d+,?/g, '');
}
