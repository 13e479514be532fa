import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FunctionColumn, FunctionDeclaration } from './schema.js';
import { declaredSqlType, quoteIdentifier } from './types.js';

/** Where a function's body lives: a schema users never name, so helpers stay out of the way. */
export const BODY_SCHEMA = 'runtime';

/** The helper macro holding the body as written; the public macro casts around it. */
export function bodyMacroName(functionName: string): string {
  return `${BODY_SCHEMA}.${quoteIdentifier(`${functionName}__body`)}`;
}

/** The body text: inline, or read from `body_ref` relative to the manifest directory. */
export async function functionBody(declaration: FunctionDeclaration, manifestDirectory: string): Promise<string> {
  const text = declaration.body ?? (await readFile(path.resolve(manifestDirectory, declaration.body_ref!), 'utf8'));
  // A trailing `;` is natural in a .sql file but would end the CREATE MACRO statement early.
  return text.trim().replace(/;+\s*$/, '');
}

function argumentNames(args: readonly FunctionColumn[]): string {
  return args.map((arg) => quoteIdentifier(arg.name)).join(', ');
}

/** Arguments as the body sees them: cast to their declared types, so `1` passed to a float64 argument is a DOUBLE. */
function castArguments(args: readonly FunctionColumn[]): string {
  return args.map((arg) => `CAST(${quoteIdentifier(arg.name)} AS ${declaredSqlType(arg.type)})`).join(', ');
}

/**
 * The DDL of a `from: sql` function. Two macros: `runtime.<name>__body(args)` is the body
 * as written, and `<name>(args)` casts the arguments in and the result out, so the declared
 * signature holds whatever the body computes. Macros live in the catalog: one CREATE serves
 * every connection.
 */
export function sqlFunctionStatements(declaration: FunctionDeclaration, body: string): string[] {
  const args = declaration.signature.args;
  const name = quoteIdentifier(declaration.name);
  const helper = bodyMacroName(declaration.name);
  const returns = declaration.signature.returns;
  if (declaration.kind === 'scalar') {
    const returnType = declaredSqlType(returns as string);
    return [
      `CREATE OR REPLACE MACRO ${helper}(${argumentNames(args)}) AS (${body})`,
      `CREATE OR REPLACE MACRO ${name}(${argumentNames(args)}) AS CAST(${helper}(${castArguments(args)}) AS ${returnType})`,
    ];
  }
  const columns = (returns as FunctionColumn[]).map((column) => `CAST(${quoteIdentifier(column.name)} AS ${declaredSqlType(column.type)}) AS ${quoteIdentifier(column.name)}`);
  return [
    `CREATE OR REPLACE MACRO ${helper}(${argumentNames(args)}) AS TABLE ${body}`,
    `CREATE OR REPLACE MACRO ${name}(${argumentNames(args)}) AS TABLE SELECT ${columns.join(', ')} FROM ${helper}(${castArguments(args)})`,
  ];
}

/**
 * A statement that binds the function without running it: macros are only bound where
 * they are called, so without this a wrong column name would first fail in a user query.
 */
export function sqlFunctionProbe(declaration: FunctionDeclaration): string {
  const nulls = declaration.signature.args.map((arg) => `CAST(NULL AS ${declaredSqlType(arg.type)})`).join(', ');
  const name = quoteIdentifier(declaration.name);
  return declaration.kind === 'scalar' ? `DESCRIBE SELECT ${name}(${nulls}) AS result` : `DESCRIBE SELECT * FROM ${name}(${nulls})`;
}

/** Drops both macros of a function (after a failed probe, so no half-registered function stays). */
export function dropSqlFunctionStatements(declaration: FunctionDeclaration): string[] {
  const table = declaration.kind === 'table' ? 'TABLE ' : '';
  return [`DROP MACRO ${table}IF EXISTS ${quoteIdentifier(declaration.name)}`, `DROP MACRO ${table}IF EXISTS ${bodyMacroName(declaration.name)}`];
}
