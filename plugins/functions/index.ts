import { QuarryError } from '../../core/errors/quarry-error.js';
import { STAGE } from '../../core/hooks/stages.js';
import type { ManifestSectionSlice } from '../../core/manifest/slice.js';
import type { PluginRuntime, QuarryPlugin } from '../../core/plugins/types.js';
import type { OfflineCheck } from '../../core/engine/check/offline-check.js';
import { createCatalog, functionListing, recordFunction, type RegisteredFunction } from './catalog.js';
import './errors.js';
import { checkEndpointRanges, remoteOptions, remoteScalarFunction } from './remote.js';
import { functionsSchema, runtimeFunctionsSchema, toolsSchema, type FunctionDeclaration, type RuntimeFunctionsConfig, type ToolDeclaration } from './schema.js';
import { BODY_SCHEMA, dropSqlFunctionStatements, functionBody, sqlFunctionProbe, sqlFunctionStatements } from './sql-functions.js';
import { HttpBatchClient } from './http-batch.js';
import { sqlToolFunction, sqlToolRefusal, type SqlTool } from './sql-tools.js';
import { functionTool } from './tools.js';

export type { RegisteredFunction } from './catalog.js';

export const FUNCTIONS_PLUGIN_NAME = 'functions';

const slices: ManifestSectionSlice[] = [
  { path: 'runtime.functions', schema: runtimeFunctionsSchema },
  { path: 'functions', schema: functionsSchema, secretFields: ['*.params.**'] },
  { path: 'tools', schema: toolsSchema, secretFields: ['*.params.**'] },
];

/** Engine errors start with their class ("Binder Error: ..."); keep the first line, which says what is wrong. */
function firstLine(error: unknown): string {
  return ((error as Error).message ?? String(error)).split('\n')[0]!;
}

function registrationError(declaration: FunctionDeclaration, index: number, reason: string, cause?: unknown): QuarryError {
  return new QuarryError('FUNCTION_REGISTRATION_FAILED', `functions[${index}] (${declaration.name}): ${reason}`, { cause, details: { function: declaration.name } });
}

/** Registers a `from: sql` function: both macros, then a probe that binds it so a bad body fails now. */
async function registerSqlFunction(runtime: PluginRuntime, declaration: FunctionDeclaration, index: number): Promise<void> {
  let body: string;
  try {
    body = await functionBody(declaration, runtime.source.directory);
  } catch (error) {
    throw registrationError(declaration, index, `cannot read body_ref ${declaration.body_ref}: ${firstLine(error)}`, error);
  }
  try {
    for (const statement of sqlFunctionStatements(declaration, body)) await runtime.engine.runInternal(statement);
    await runtime.engine.runInternal(sqlFunctionProbe(declaration));
  } catch (error) {
    for (const statement of dropSqlFunctionStatements(declaration)) await runtime.engine.runInternal(statement).catch(() => undefined);
    const what = declaration.kind === 'scalar' ? 'failed to parse function body as a SQL expression' : 'failed to parse function body as a SELECT';
    throw registrationError(declaration, index, `${what}: ${firstLine(error)}`, error);
  }
}

/**
 * Why a `from: sql` function would fail to register (its body unreadable, or not binding on
 * the check's engine), or undefined; a body reading a dataset --check cannot see is not a problem.
 */
async function sqlFunctionProblem(check: OfflineCheck, directory: string, declaration: FunctionDeclaration): Promise<string | undefined> {
  let body: string;
  try {
    body = await functionBody(declaration, directory);
  } catch (error) {
    return `cannot read body_ref ${declaration.body_ref}: ${firstLine(error)}`;
  }
  try {
    for (const statement of sqlFunctionStatements(declaration, body)) await check.run(statement);
    await check.run(sqlFunctionProbe(declaration));
    return undefined;
  } catch (error) {
    if (check.readsUnchecked(error)) return undefined;
    return `${declaration.kind === 'scalar' ? 'failed to parse function body as a SQL expression' : 'failed to parse function body as a SELECT'}: ${firstLine(error)}`;
  }
}

/** Why an http(s) function's params, endpoint or types would be refused at start-up, or undefined. */
function remoteFunctionProblem(declaration: FunctionDeclaration, http: HttpBatchClient): string | undefined {
  try {
    const options = remoteOptions(declaration.params);
    checkEndpointRanges(declaration.from, declaration.params.allowed_endpoint_ranges);
    remoteScalarFunction(declaration, options, http);
    return undefined;
  } catch (error) {
    return firstLine(error);
  }
}

/** Registers an http(s) function: checks its params and endpoint, then adds the engine function to every connection. */
function registerRemoteFunction(runtime: PluginRuntime, declaration: FunctionDeclaration, index: number, http: HttpBatchClient): void {
  let defined: ReturnType<typeof remoteScalarFunction>;
  try {
    const options = remoteOptions(declaration.params);
    checkEndpointRanges(declaration.from, declaration.params.allowed_endpoint_ranges);
    defined = remoteScalarFunction(declaration, options, http); // checks the types now, not on the first connection
  } catch (error) {
    throw registrationError(declaration, index, firstLine(error), error);
  }
  runtime.engine.addConnectionInitializer(async (connection) => defined.registerOn(connection));
}

/**
 * `tools:` entries with `as_sql: true` become scalar SQL functions (http(s) tools with a
 * signature); the others stay LLM-only with a warning, as do all of them when functions are off.
 */
function registerSqlTools(runtime: PluginRuntime, tools: readonly ToolDeclaration[], enabled: boolean, http: HttpBatchClient, taken: ReadonlySet<string>): RegisteredFunction[] {
  const registered: RegisteredFunction[] = [];
  for (const [index, tool] of tools.entries()) {
    if (tool.as_sql !== true) continue;
    if (!enabled) {
      runtime.log.warn(`tool ${tool.name} has as_sql: true, but runtime.functions.enabled is false: it stays an LLM tool only`);
      continue;
    }
    const refusal = sqlToolRefusal(tool);
    if (refusal) {
      runtime.log.warn(`tool ${tool.name} has as_sql: true but is not a SQL function: ${refusal}`);
      continue;
    }
    const where = `tools[${index}] (${tool.name})`;
    if (taken.has(tool.name.toLowerCase())) {
      throw new QuarryError('FUNCTION_REGISTRATION_FAILED', `${where}: a function named ${tool.name} is already declared in functions:; rename one of them`, { details: { function: tool.name } });
    }
    let defined: ReturnType<typeof sqlToolFunction>;
    try {
      defined = sqlToolFunction(tool as SqlTool, http); // checks params, endpoint and types now
    } catch (error) {
      throw new QuarryError('FUNCTION_REGISTRATION_FAILED', `${where}: ${firstLine(error)}`, { cause: error, details: { function: tool.name } });
    }
    runtime.engine.addConnectionInitializer(async (connection) => defined.registerOn(connection));
    registered.push({ name: tool.name, kind: 'scalar', volatility: 'volatile', from: tool.from!, description: tool.description });
  }
  return registered;
}

/**
 * User-defined functions: `from: sql` functions become DuckDB macros (global), `from:
 * http(s)://` functions and `as_sql` http(s) tools become engine functions (answered asynchronously) on every
 * connection. `list_udfs()` and `GET /v1/functions` report what was registered.
 */
export function createFunctionsPlugin(): QuarryPlugin {
  return {
    name: FUNCTIONS_PLUGIN_NAME,
    manifest: slices,
    apply(runtime) {
      const config = runtime.section<RuntimeFunctionsConfig>('runtime.functions') ?? { enabled: false };
      const declarations = runtime.section<FunctionDeclaration[]>('functions') ?? [];
      const tools = runtime.section<ToolDeclaration[]>('tools') ?? [];
      const registered: RegisteredFunction[] = [];
      const http = new HttpBatchClient();

      runtime.http.get('/v1/functions', async () => functionListing(registered));

      // quarryd --check: each function start-up would register, bound on the check's scratch engine.
      runtime.hooks.check.tapPromise(FUNCTIONS_PLUGIN_NAME, async (check) => {
        if (!config.enabled) return;
        await check.run(`CREATE SCHEMA IF NOT EXISTS ${BODY_SCHEMA}`);
        for (const [index, declaration] of declarations.entries()) {
          if (!declaration.enabled) continue;
          const problem = declaration.from === 'sql' ? await sqlFunctionProblem(check, runtime.source.directory, declaration) : remoteFunctionProblem(declaration, http);
          if (problem) check.report(`functions[${index}]`, `${declaration.name}: ${problem}`);
        }
      });

      runtime.hooks.startup.tapPromise(FUNCTIONS_PLUGIN_NAME, async () => {
        await createCatalog(runtime.engine);
        if (!config.enabled) {
          registerSqlTools(runtime, tools, false, http, new Set());
          if (declarations.length > 0) runtime.log.warn(`${declarations.length} entries of functions: are not registered: runtime.functions.enabled is false`);
          return;
        }
        for (const [index, declaration] of declarations.entries()) {
          if (!declaration.enabled) continue;
          if (declaration.from === 'sql') await registerSqlFunction(runtime, declaration, index);
          else registerRemoteFunction(runtime, declaration, index, http);
          // A remote answer may change between calls, so it is at most stable (as in Spice).
          const volatility = declaration.from !== 'sql' && declaration.volatility === 'immutable' ? 'stable' : declaration.volatility;
          const entry: RegisteredFunction = { name: declaration.name, kind: declaration.kind, volatility, from: declaration.from, description: declaration.description };
          await recordFunction(runtime.engine, entry);
          registered.push(entry);
          const tool = functionTool(runtime, declaration);
          if (typeof tool === 'string') runtime.log.debug(`function ${declaration.name} is not a tool: ${tool}`);
          else runtime.tools.register(tool);
        }
        const declared = new Set(declarations.filter((declaration) => declaration.enabled).map((declaration) => declaration.name.toLowerCase()));
        for (const entry of registerSqlTools(runtime, tools, true, http, declared)) {
          await recordFunction(runtime.engine, entry);
          registered.push(entry);
        }
        runtime.log.info(`registered ${registered.length} user functions`, { functions: registered.map((entry) => entry.name) });
      });

      // Remote calls still out when shutdown_timeout expires fail then, with the engine's
      // interrupt: the engine threads waiting for them cannot be interrupted otherwise.
      runtime.hooks.shutdown.drain.tapPromise(FUNCTIONS_PLUGIN_NAME, async ({ signal }) => {
        signal.addEventListener('abort', () => http.close(), { once: true });
      });
      runtime.hooks.shutdown.stop.tapPromise({ name: FUNCTIONS_PLUGIN_NAME, stage: STAGE.STOP_PLUGINS }, async () => http.close());
    },
  };
}
