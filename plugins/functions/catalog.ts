import type { EngineApi } from '../../core/engine/engine-api.js';
import { BODY_SCHEMA } from './sql-functions.js';

/** One registered user function, as GET /v1/functions and list_udfs() report it. */
export interface RegisteredFunction {
  readonly name: string;
  readonly kind: 'scalar' | 'table';
  /** The effective volatility (remote functions are capped to stable). */
  readonly volatility: 'immutable' | 'stable' | 'volatile';
  readonly from: string;
  readonly description: string | undefined;
}

export const USER_FUNCTIONS_TABLE = `${BODY_SCHEMA}.user_functions`;

/**
 * `list_udfs()`: user functions from the table this plugin keeps, then every other function
 * the engine knows as `builtin` (one row per name; the helper macros in the runtime schema
 * are hidden). A table macro, so it is global and users call it like Spice's.
 */
const LIST_UDFS_SQL = `CREATE OR REPLACE MACRO list_udfs() AS TABLE
SELECT name, source, kind, volatility, "from", description FROM (
  SELECT name, 'user' AS source, kind, volatility, "from", description, 0 AS sort_group FROM ${USER_FUNCTIONS_TABLE}
  UNION ALL
  SELECT function_name, 'builtin', NULL, NULL, NULL, any_value(description), 1
  FROM duckdb_functions()
  WHERE schema_name <> '${BODY_SCHEMA}' AND lower(function_name) NOT IN (SELECT lower(name) FROM ${USER_FUNCTIONS_TABLE})
  GROUP BY function_name
) ORDER BY sort_group, name`;

/** Creates the table and list_udfs(); the table starts empty (a restart forgets old entries). */
export async function createCatalog(engine: EngineApi): Promise<void> {
  await engine.runInternal(`CREATE SCHEMA IF NOT EXISTS ${BODY_SCHEMA}`);
  await engine.runInternal(`CREATE OR REPLACE TABLE ${USER_FUNCTIONS_TABLE} (name VARCHAR NOT NULL, kind VARCHAR, volatility VARCHAR, "from" VARCHAR, description VARCHAR)`);
  await engine.runInternal(LIST_UDFS_SQL);
}

export async function recordFunction(engine: EngineApi, registered: RegisteredFunction): Promise<void> {
  await engine.runInternal(`INSERT INTO ${USER_FUNCTIONS_TABLE} VALUES ($1, $2, $3, $4, $5)`, [
    registered.name,
    registered.kind,
    registered.volatility,
    registered.from,
    registered.description ?? null,
  ]);
}

/** The body of GET /v1/functions: `description` left out when unset, as Spice does. */
export function functionListing(registered: readonly RegisteredFunction[]): Array<Record<string, string>> {
  return registered.map((entry) => ({
    name: entry.name,
    kind: entry.kind,
    volatility: entry.volatility,
    from: entry.from,
    ...(entry.description === undefined ? {} : { description: entry.description }),
  }));
}
