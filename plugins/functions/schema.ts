import { z } from 'zod';
import { requiredField } from '../../core/manifest/messages.js';
import { parseFunctionType } from './types.js';

/** `runtime.functions`: whether `functions:` entries are registered with the SQL engine. */
export const runtimeFunctionsSchema = z
  .strictObject({
    enabled: z.boolean().default(false).describe('Register functions: entries with the SQL engine and GET /v1/functions (default false).'),
  })
  .prefault({})
  .describe('User-defined SQL functions.');

/** Duplicate names in a list of named entries: the later one is the error. */
function uniqueNames(what: string) {
  return (entries: ReadonlyArray<{ name: string }>, context: z.core.$RefinementCtx) => {
    const first = new Map<string, number>();
    entries.forEach((entry, index) => {
      const key = entry.name.toLowerCase();
      const earlier = first.get(key);
      if (earlier !== undefined) context.addIssue({ code: 'custom', path: [index, 'name'], message: `duplicate ${what} name "${entry.name}" (also [${earlier}])` });
      else first.set(key, index);
    });
  };
}

/** Function and argument names go into SQL DDL unquoted by users, so they must be plain identifiers. */
const identifier = (hint: string) =>
  z
    .string({ error: requiredField(hint) })
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a SQL identifier: letters, digits and _, not starting with a digit');

/** A declared type: kept as written, checked here so a typo fails with its path. */
const declaredType = z.string({ error: requiredField('a type, e.g. int64, utf8 or list<float64>') }).superRefine((text, context) => {
  try {
    parseFunctionType(text);
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

const column = z.strictObject({ name: identifier('the argument or column name'), type: declaredType });

const signatureSchema = z.strictObject({
  args: z.array(column).superRefine(uniqueNames('argument')).default([]),
  /** Table inputs (Spice): not supported yet, accepted so a Spice manifest parses, refused at registration. */
  tables: z.array(z.strictObject({ name: identifier('the table argument name'), columns: z.array(column) })).optional(),
  returns: z.union([declaredType, z.array(column).min(1)], { error: 'expected a type (scalar) or a list of {name, type} columns (table)' }),
});

/** The `from:` values a function may use: SQL in the manifest, or a remote HTTP endpoint. */
const fromSchema = z
  .string({ error: requiredField('where the function comes from: sql, http(s)://... or wasm') })
  .refine((from) => from === 'sql' || /^https?:\/\/.+/i.test(from), {
    error: (issue) => `the from scheme '${String(issue.input).split(':')[0]}' is unsupported: expected sql, http://... or https://...`,
  })
  .meta({ pattern: '^(?:sql|[hH][tT][tT][pP][sS]?://.+)$' });

const functionDeclaration = z
  .strictObject({
    name: identifier('the SQL name of the function, e.g. add_tax'),
    from: fromSchema,
    enabled: z.boolean().default(true),
    description: z.string().optional(),
    kind: z.enum(['scalar', 'table']).default('scalar'),
    volatility: z.enum(['immutable', 'stable', 'volatile']).default('volatile'),
    signature: signatureSchema,
    body: z.string().min(1).optional(),
    body_ref: z.string().min(1).optional(),
    params: z.record(z.string(), z.unknown()).default({}),
    metadata: z.record(z.string(), z.unknown()).optional(),
    dependsOn: z.array(z.string()).optional(),
    as_tool: z.boolean().default(true),
  })
  .superRefine((declaration, context) => {
    const isSql = declaration.from === 'sql';
    const hasBody = declaration.body !== undefined;
    const hasBodyRef = declaration.body_ref !== undefined;
    if (isSql && hasBody && hasBodyRef) context.addIssue({ code: 'custom', path: ['body_ref'], message: 'body: and body_ref: are mutually exclusive' });
    if (isSql && !hasBody && !hasBodyRef) context.addIssue({ code: 'custom', path: ['body'], message: 'required: a sql function needs body (an expression or SELECT) or body_ref (a file)' });
    if (!isSql && (hasBody || hasBodyRef)) context.addIssue({ code: 'custom', path: [hasBody ? 'body' : 'body_ref'], message: 'a remote (http) function has no body: the endpoint computes it' });
    const returnsType = typeof declaration.signature.returns === 'string';
    if (declaration.kind === 'scalar' && !returnsType) context.addIssue({ code: 'custom', path: ['signature', 'returns'], message: 'a scalar function returns one type, e.g. returns: float64' });
    if (declaration.kind === 'table' && returnsType) context.addIssue({ code: 'custom', path: ['signature', 'returns'], message: 'a table function returns a list of columns, e.g. returns: [{name: id, type: int64}]' });
    if (declaration.kind === 'table' && !isSql) context.addIssue({ code: 'custom', path: ['kind'], message: 'remote (http) functions are scalar only in Quarry' });
  });

/** Top-level `functions:`. Strict: a typo stops loading with its path (as Spice does). */
export const functionsSchema = z
  .array(functionDeclaration)
  .superRefine(uniqueNames('function'))
  .default([])
  .describe('User-defined functions (registered when runtime.functions.enabled is true).');

/** The types a tool call can carry as JSON (Spice's rule for tools as SQL functions). */
const TOOL_SQL_TYPES = ['BIGINT', 'DOUBLE', 'VARCHAR', 'BOOLEAN'];

const toolType = declaredType.superRefine((text, context) => {
  try {
    const parsed = parseFunctionType(text);
    if (parsed.kind !== 'primitive' || !TOOL_SQL_TYPES.includes(parsed.sql)) context.addIssue({ code: 'custom', message: `a tool called from SQL takes and returns int64, float64, utf8 or boolean, got ${text}` });
  } catch {
    // declaredType already reported it
  }
});

/** The `signature:` of a tool used from SQL: scalar, JSON-friendly types only. */
const toolSignatureSchema = z.strictObject({
  args: z.array(z.strictObject({ name: identifier('the argument name'), type: toolType })).superRefine(uniqueNames('argument')).default([]),
  returns: toolType,
});

/**
 * A `tools:` entry. Loose (the tools section is Spice's and mostly serves LLM features
 * Quarry lacks), but the keys SQL use reads are checked: `as_sql`, `signature`, `from`, `params`.
 */
const toolDeclaration = z
  .looseObject({
    name: z.string({ error: requiredField('the tool name') }).min(1),
    from: z.string().min(1).optional(),
    description: z.string().optional(),
    as_sql: z.boolean().optional(),
    signature: toolSignatureSchema.optional(),
    params: z.record(z.string(), z.unknown()).default({}),
  })
  .superRefine((tool, context) => {
    if (tool.as_sql === true && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(tool.name)) {
      context.addIssue({ code: 'custom', path: ['name'], message: 'a tool with as_sql: true is called by its name in SQL: expected a SQL identifier (letters, digits and _, not starting with a digit)' });
    }
  });

/** Top-level `tools:` (LLM tools; `as_sql: true` tools become SQL functions). */
export const toolsSchema = z
  .array(toolDeclaration)
  .superRefine(uniqueNames('tool'))
  .default([])
  .describe('Tools, usable from SQL when as_sql is true.');

export type RuntimeFunctionsConfig = z.output<typeof runtimeFunctionsSchema>;
export type FunctionDeclaration = z.output<typeof functionsSchema>[number];
export type ToolDeclaration = z.output<typeof toolsSchema>[number];
export type FunctionColumn = z.output<typeof column>;
