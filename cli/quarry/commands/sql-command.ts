import type { ConnectionOptions, OutputFormat } from '../arguments.js';
import { EXIT_OK, UsageError, describeError, exitCodeFor } from '../errors.js';
import { red, writeTo, type CliIo } from '../output.js';
import { runRepl } from '../repl/repl.js';
import { splitStatements } from '../sql/statement-splitter.js';
import { runStatement } from '../statement-runner.js';
import { createQueryTransport } from '../transport/create-transport.js';
import type { QueryTransport } from '../transport/query-transport.js';

export interface SqlCommandOptions {
  connection: ConnectionOptions;
  execute: string | undefined;
  output: OutputFormat;
}

/** `quarry sql`: the REPL, or with `-e` one run of the given SQL and an exit code for scripts. */
export async function runSqlCommand(options: SqlCommandOptions, io: CliIo): Promise<number> {
  const transport = await createQueryTransport(options.connection);
  try {
    if (options.execute === undefined) return await runRepl({ transport, io, format: options.output });
    return await executeOnce(options.execute, options.output, transport, io);
  } finally {
    transport.close();
  }
}

/**
 * `-e "SQL"`: the runtime takes one statement per request, so text holding several
 * (`select 1; select 2`) runs them in order and stops at the first failure.
 */
async function executeOnce(sql: string, format: OutputFormat, transport: QueryTransport, io: CliIo): Promise<number> {
  const { statements, remainder } = splitStatements(sql);
  // The last statement needs no `;`, as with any SQL client's -e.
  if (remainder.trim() !== '') statements.push(remainder.trim());
  if (statements.length === 0) throw new UsageError('--execute holds no SQL statement (only comments or blanks)');
  // Several statements with -o json: one JSON document, an array holding each statement's rows.
  const jsonArray = format === 'json' && statements.length > 1;
  if (jsonArray) await writeTo(io.stdout, '[');
  for (const [index, statement] of statements.entries()) {
    try {
      await runStatement(transport, statement, { format, out: io.stdout, notes: io.stderr, noTrailingNewline: jsonArray, ...(jsonArray && index > 0 ? { prefix: ',' } : {}) });
    } catch (error) {
      // The array is closed after the results that came whole; stderr says which statement failed.
      if (jsonArray) await writeTo(io.stdout, ']\n');
      io.stderr.write(`${red(describeError(error, 'query'), io.stderr, io.env)}\n`);
      return exitCodeFor(error);
    }
  }
  if (jsonArray) await writeTo(io.stdout, ']\n');
  return EXIT_OK;
}
