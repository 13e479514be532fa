import type { DuckDBConnection } from '@duckdb/node-api';
import { KeptTextFunction } from './kept-text-function.js';

/** The engine's planner, kept per connection (kept-text-function.ts). */
const planner = new KeptTextFunction('SELECT json_serialize_plan($1::VARCHAR)');

/**
 * DuckDB's serialised logical plan of a statement, with source positions removed so that
 * whitespace and layout do not change it (keyword case and `main.t` vs `t` already do not).
 */
export async function logicalPlanText(connection: DuckDBConnection, sql: string): Promise<string> {
  const text = await planner.apply(connection, sql);
  // A plan opens with its error flag: only a failure is parsed (for its message), not every plan of a few KiB.
  if (!text.startsWith('{"error":false,')) {
    const parsed = JSON.parse(text) as { error?: boolean; error_message?: string };
    if (parsed.error) throw new Error(`Binder Error: ${parsed.error_message ?? 'the statement has no logical plan'}`);
  }
  return text.replace(/"query_location":\d+,?/g, '');
}
