import type { Schema } from 'apache-arrow';
import type { QuarryError } from '../errors/quarry-error.js';
import type { StatementKind } from '../pipeline/types.js';
import type { EngineStream } from './result-stream.js';

/** A statement prepared and classified, holding its connection until executed or closed. */
export interface PreparedQuery {
  readonly kind: StatementKind;
  readonly statementType: string;
  readonly parameterCount: number;
  /** The result columns DuckDB resolved at prepare time (DML answers one BIGINT `Count`). */
  readonly resultSchema: Schema;
  /** One field per positional parameter; Utf8 where the engine cannot tell the type yet. */
  readonly parameterSchema: Schema;
  /** The normalised logical plan (see QueryRequest.logicalPlan); call before execute or close. */
  logicalPlan(): Promise<string>;
  /** Why user SQL may not run this statement (function-policy.ts), or undefined; call before execute or close. */
  functionRefusal(): Promise<QuarryError | undefined>;
  execute(parameters: readonly unknown[], signal: AbortSignal): Promise<EngineStream>;
  close(): void;
}
