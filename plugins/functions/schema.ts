import { z } from 'zod';
import { requiredField } from '../../core/manifest/messages.js';

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
      const earlier = first.get(entry.name);
      if (earlier !== undefined) context.addIssue({ code: 'custom', path: [index, 'name'], message: `duplicate ${what} name "${entry.name}" (also [${earlier}])` });
      else first.set(entry.name, index);
    });
  };
}

/**
 * Top-level `functions:`. For now each entry needs `name` and `from`; other keys are kept
 * as written until the functions issue defines them (then this object becomes strict).
 */
export const functionsSchema = z
  .array(
    z.looseObject({
      name: z.string({ error: requiredField('the SQL name of the function, e.g. add_tax') }).min(1),
      from: z.string({ error: requiredField('where the function comes from: sql, http(s)://... or wasm') }).min(1),
    }),
  )
  .superRefine(uniqueNames('function'))
  .default([])
  .describe('User-defined functions (registered when runtime.functions.enabled is true).');

/** Top-level `tools:` (LLM tools; `as_sql: true` tools become SQL functions). */
export const toolsSchema = z
  .array(z.looseObject({ name: z.string({ error: requiredField('the tool name') }).min(1) }))
  .superRefine(uniqueNames('tool'))
  .default([])
  .describe('Tools, usable from SQL when as_sql is true.');

export type RuntimeFunctionsConfig = z.output<typeof runtimeFunctionsSchema>;
export type FunctionDeclaration = z.output<typeof functionsSchema>[number];
export type ToolDeclaration = z.output<typeof toolsSchema>[number];
