import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { quoteQualifiedName } from '../../core/engine/sql-text.js';
import type { PluginRuntime } from '../../core/plugins/types.js';
import type { RuntimeTool, ToolArgumentType } from '../../core/tools/tool-registry.js';
import { queryAsJsonText, queryRows, runTool, type ToolCallContext } from './tool-runner.js';

export const SAMPLE_ROWS_DEFAULT = 10;
export const SAMPLE_ROWS_MAX = 1000;

/** The caller of a tool, from the HTTP request the transport is answering (see routes.ts). */
export type CallerOf = (extra: { authInfo?: { extra?: Record<string, unknown> }; signal: AbortSignal }) => ToolCallContext;

/** Finds a dataset by name, case-insensitively (the engine folds unquoted names); refuses unknown names. */
/** A dataset or manifest view by name (any case), as list_datasets reports it. */
function knownDataset(runtime: PluginRuntime, name: string): { name: string } {
  const wanted = name.toLowerCase();
  const tables = [...runtime.engine.datasets(), ...runtime.engine.views()];
  const found = tables.find((table) => table.name.toLowerCase() === wanted);
  if (!found) {
    const names = tables.map((table) => table.name).join(', ');
    throw new QuarryError('DATASET_NOT_FOUND', `no dataset or view named ${JSON.stringify(name)}; names: ${names || '(none)'}`);
  }
  return found;
}

interface ColumnInfo {
  name: string;
  type: string;
  nullable: boolean;
  /** From the manifest's `columns:` of the dataset, when it has one. */
  description?: string;
}

/** The columns of a dataset, asked through the pipeline with DESCRIBE (a read statement). */
async function describe(runtime: PluginRuntime, dataset: string, call: ToolCallContext): Promise<ColumnInfo[]> {
  const rows = await queryRows(runtime, `DESCRIBE ${quoteQualifiedName(dataset)}`, call);
  const declared = runtime.manifest.datasets.find((config) => config.name.toLowerCase() === dataset.toLowerCase())?.columns ?? [];
  const descriptions = new Map(declared.filter((column) => column.description !== undefined).map((column) => [column.name.toLowerCase(), column.description!]));
  return rows.map((row) => {
    const name = String(row['column_name']);
    const description = descriptions.get(name.toLowerCase());
    return { name, type: String(row['column_type']), nullable: row['null'] !== 'NO', ...(description === undefined ? {} : { description }) };
  });
}

/** Readiness as /v1/ready decides it, plus each dataset's state, for agents deciding whether to wait. */
function readiness(runtime: PluginRuntime) {
  const datasets = runtime.engine.datasets();
  const running = runtime.phase() === 'running';
  const readyState = runtime.manifest.runtime.ready_state;
  const loaded = datasets.every((dataset) => dataset.state === 'ready' || dataset.state === 'refreshing');
  return {
    ready: running && (readyState === 'on_registration' || loaded),
    phase: runtime.phase(),
    ready_state: readyState,
    datasets: datasets.map((dataset) => ({ name: dataset.name, state: dataset.state, ...(dataset.error ? { error: dataset.error } : {}) })),
  };
}

/** The names of the tools this plugin defines; a plugin's tool of the same name is not listed. */
export const BUILTIN_TOOL_NAMES: readonly string[] = ['sql', 'list_datasets', 'table_schema', 'sample_rows', 'get_readiness'];

const ARGUMENT_SCHEMAS: Record<ToolArgumentType, () => z.ZodType> = {
  integer: () => z.number().int(),
  number: () => z.number(),
  string: () => z.string(),
  boolean: () => z.boolean(),
  'string-list': () => z.array(z.string()),
};

/** The input schema of a plugin's tool: arguments typed as declared, required unless said otherwise. */
function inputSchemaOf(tool: RuntimeTool): Record<string, z.ZodType> {
  return Object.fromEntries(tool.arguments.map((arg) => {
    const typed = ARGUMENT_SCHEMAS[arg.type]();
    const schema = arg.required === false ? typed.optional() : typed;
    return [arg.name, arg.description === undefined ? schema : schema.describe(arg.description)];
  }));
}

/**
 * Registers the tools other plugins put in the runtime's tool registry (user functions with
 * `as_tool`, ...). Read per server, so it lists what start-up registered.
 */
function registerPluginTools(server: McpServer, runtime: PluginRuntime, callerOf: CallerOf): void {
  warnAboutToolCollisions(runtime);
  for (const tool of runtime.tools.list()) {
    if (BUILTIN_TOOL_NAMES.includes(tool.name)) continue;
    server.registerTool(tool.name, {
      description: tool.description,
      inputSchema: inputSchemaOf(tool),
    }, async (input, extra) => runTool(runtime, tool.name, input, () => {
      const { principal, signal } = callerOf(extra);
      return tool.call(input as Record<string, unknown>, { principal, signal, protocol: 'mcp' });
    }));
  }
}

/** Runtimes whose collisions were logged: servers are made per session, the warning once. */
const warnedRuntimes = new WeakSet<object>();

/** Spice's rule: a plugin tool named like a built-in one is skipped with a warning. */
function warnAboutToolCollisions(runtime: PluginRuntime): void {
  if (warnedRuntimes.has(runtime.tools)) return;
  warnedRuntimes.add(runtime.tools);
  for (const tool of runtime.tools.list().filter((candidate) => BUILTIN_TOOL_NAMES.includes(candidate.name))) {
    runtime.log.warn(`tool ${tool.name} of plugin ${tool.owner} is not offered over MCP: the MCP server has a built-in tool of that name`);
  }
}

/** Registers Quarry's built-in tools, then the plugins' tools, on one MCP server (one server per session or stateless request). */
export function registerTools(server: McpServer, runtime: PluginRuntime, callerOf: CallerOf): void {
  registerBuiltinTools(server, runtime, callerOf);
  registerPluginTools(server, runtime, callerOf);
}

function registerBuiltinTools(server: McpServer, runtime: PluginRuntime, callerOf: CallerOf): void {
  server.registerTool('sql', {
    title: 'Run a SQL query',
    description: 'Runs one read-only SQL query (DuckDB dialect) against the datasets of this Quarry runtime and returns the rows as a JSON array of objects. Writes (INSERT, DDL) are refused. Use list_datasets and table_schema first to learn table and column names.',
    inputSchema: { query: z.string().min(1).describe('One SQL statement, e.g. SELECT count(*) FROM orders') },
    annotations: { readOnlyHint: true },
  }, async (input, extra) => runTool(runtime, 'sql', input, () => queryAsJsonText(runtime, input.query, callerOf(extra))));

  server.registerTool('list_datasets', {
    title: 'List datasets',
    description: 'Lists the datasets (tables) and views this runtime serves: name, kind (dataset or view), description, number of columns and state (ready, initializing, refreshing, error, ...; a view: ready, waiting or error).',
    inputSchema: z.object({}),
    annotations: { readOnlyHint: true },
  }, async (_input, extra) => runTool(runtime, 'list_datasets', {}, async () => {
    const call = callerOf(extra);
    const datasets = await Promise.all(runtime.engine.datasets().map(async (dataset) => ({
      name: dataset.name,
      description: dataset.description ?? null,
      // A dataset that failed to load has no columns to describe: report null, not an error.
      columns: await describe(runtime, dataset.name, call).then((columns) => columns.length, () => null),
      state: dataset.state,
      kind: 'dataset',
    })));
    const views = await Promise.all(runtime.engine.views().map(async (view) => ({
      name: view.name,
      description: view.description ?? null,
      columns: view.state === 'ready' ? await describe(runtime, view.name, call).then((columns) => columns.length, () => null) : null,
      state: view.state,
      kind: 'view',
    })));
    return JSON.stringify([...datasets, ...views]);
  }));

  server.registerTool('table_schema', {
    title: 'Describe tables',
    description: 'Returns the columns of the named datasets. output "full" (default) gives each column\'s name, SQL type and nullability; "minimal" gives column names only.',
    inputSchema: {
      tables: z.array(z.string().min(1)).min(1).describe('Dataset names, as list_datasets reports them'),
      output: z.enum(['full', 'minimal']).default('full').describe('full: name, type, nullable per column; minimal: names only'),
    },
    annotations: { readOnlyHint: true },
  }, async (input, extra) => runTool(runtime, 'table_schema', input, async () => {
    const call = callerOf(extra);
    const tables = await Promise.all(input.tables.map(async (table) => {
      const dataset = knownDataset(runtime, table);
      const columns = await describe(runtime, dataset.name, call);
      return { table: dataset.name, columns: input.output === 'minimal' ? columns.map((column) => column.name) : columns };
    }));
    return JSON.stringify(tables);
  }));

  server.registerTool('sample_rows', {
    title: 'Sample rows of a dataset',
    description: `Returns the first rows of one dataset as a JSON array of objects (default ${SAMPLE_ROWS_DEFAULT}, at most ${SAMPLE_ROWS_MAX}): a quick look at real values before writing SQL.`,
    inputSchema: {
      dataset: z.string().min(1).describe('Dataset name, as list_datasets reports it'),
      limit: z.number().int().min(1).max(SAMPLE_ROWS_MAX).default(SAMPLE_ROWS_DEFAULT).describe(`Rows to return (1-${SAMPLE_ROWS_MAX})`),
    },
    annotations: { readOnlyHint: true },
  }, async (input, extra) => runTool(runtime, 'sample_rows', input, async () => {
    const dataset = knownDataset(runtime, input.dataset);
    // The name comes from the dataset list, quoted: the caller's text never reaches the SQL.
    return queryAsJsonText(runtime, `SELECT * FROM ${quoteQualifiedName(dataset.name)} LIMIT ${input.limit}`, callerOf(extra));
  }));

  server.registerTool('get_readiness', {
    title: 'Runtime readiness',
    description: 'Tells whether the runtime is ready to answer queries (as GET /v1/ready) and the load state of each dataset, with the error of any that failed.',
    inputSchema: z.object({}),
    annotations: { readOnlyHint: true },
  }, async () => runTool(runtime, 'get_readiness', {}, async () => JSON.stringify(readiness(runtime))));
}
