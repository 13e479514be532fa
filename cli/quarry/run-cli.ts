import { QUARRY_VERSION } from '../version.js';
import { parseCommandLine, type ParsedCommand } from './arguments.js';
import { runRefreshCommand } from './commands/refresh-command.js';
import { runSqlCommand } from './commands/sql-command.js';
import { runStatusCommand } from './commands/status-command.js';
import { EXIT_OK, UsageError, describeError, exitCodeFor } from './errors.js';
import { red, type CliIo } from './output.js';
import { usageFor } from './usage.js';

/**
 * Runs one `quarry` invocation and resolves to the exit code. Commands throw their
 * failures; this is the one place that prints them, so every command reports errors alike.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let command: ParsedCommand;
  try {
    command = parseCommandLine(argv, io.env);
  } catch (error) {
    io.stderr.write(`${red(describeError(error), io.stderr, io.env)}\n`);
    if (error instanceof UsageError) io.stderr.write(`Run 'quarry --help' for usage.\n`);
    return exitCodeFor(error);
  }
  try {
    return await dispatch(command, io);
  } catch (error) {
    io.stderr.write(`${red(describeError(error), io.stderr, io.env)}\n`);
    return exitCodeFor(error);
  }
}

async function dispatch(command: ParsedCommand, io: CliIo): Promise<number> {
  switch (command.command) {
    case 'help':
      io.stdout.write(usageFor(command.topic));
      return EXIT_OK;
    case 'version':
      io.stdout.write(`quarry ${QUARRY_VERSION}\n`);
      return EXIT_OK;
    case 'sql':
      return runSqlCommand(command, io);
    case 'status':
      return runStatusCommand(command.connection, io, { watch: command.watch });
    case 'refresh':
      return runRefreshCommand(command, io);
  }
}
