/**
 * The REPL's own commands. They work without a `;` and only on an empty statement buffer,
 * so a SQL line that happens to read `quit` in the middle of a statement stays SQL.
 */
export type ReplCommand =
  | { kind: 'exit' }
  | { kind: 'help' }
  | { kind: 'last-error' }
  | { kind: 'clear-screen' }
  | { kind: 'clear-history' }
  /** `show tables` without `;`, as users type it from the banner hint. */
  | { kind: 'sql'; sql: string };

const commands: Record<string, ReplCommand> = {
  '.exit': { kind: 'exit' },
  exit: { kind: 'exit' },
  '.quit': { kind: 'exit' },
  quit: { kind: 'exit' },
  q: { kind: 'exit' },
  help: { kind: 'help' },
  '.help': { kind: 'help' },
  '.error': { kind: 'last-error' },
  '.clear': { kind: 'clear-screen' },
  '.clear history': { kind: 'clear-history' },
  'show tables': { kind: 'sql', sql: 'SHOW TABLES' },
};

/** The command a line is, if any (case and surrounding blanks ignored, an optional `;` allowed). */
export function parseReplCommand(line: string): ReplCommand | undefined {
  const normalized = line.trim().replace(/\s*;$/, '').replace(/\s+/g, ' ').toLowerCase();
  return commands[normalized];
}

export const BANNER = "Welcome to the Quarry SQL REPL! Type 'help' for help.";
export const BANNER_HINT = 'show tables; -- list available tables';

export const REPL_HELP = `Enter SQL statements ending with ';' (they may span several lines).

Commands (no ';' needed):
  show tables       list the tables you can query
  .error            details of the last error
  .clear            clear the screen
  .clear history    forget the query history
  help, .help       this text
  .exit, exit, quit, .quit, q
                    leave the REPL (Ctrl-D on an empty line does too)

Ctrl-C cancels the line being typed or the running query; on an empty line it exits.
Results show at most 500 rows; the footer gives the total.
`;
