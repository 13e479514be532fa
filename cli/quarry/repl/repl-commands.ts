/**
 * The REPL's own commands, in Spice's words (`help`, `.exit`), psql's (`\?`, `\q`, `\dt`,
 * `\d NAME`, `\x`, `\timing`) and DuckDB's shell's (`.tables`, `.schema NAME`, `.mode`,
 * `.timer`). They work without a `;` and only on an empty statement buffer, so a SQL line
 * that happens to read `quit` in the middle of a statement stays SQL.
 */
export type DisplayMode = 'table' | 'csv' | 'json' | 'line';

export type ReplCommand =
  | { kind: 'exit' }
  | { kind: 'help' }
  | { kind: 'last-error' }
  | { kind: 'clear-screen' }
  | { kind: 'clear-history' }
  /** `show tables` without `;`, as users type it from the banner hint. */
  | { kind: 'sql'; sql: string }
  | { kind: 'describe'; table: string; style: 'columns' | 'create' }
  | { kind: 'expanded'; on: boolean | undefined }
  | { kind: 'timing'; on: boolean | undefined }
  | { kind: 'mode'; mode: DisplayMode | undefined }
  /** A `\` or `.` command that is not one, or one used wrongly: the message says which and what is accepted. */
  | { kind: 'invalid'; message: string };

const LIST_TABLES: ReplCommand = { kind: 'sql', sql: 'SHOW TABLES' };

const commands: Record<string, ReplCommand> = {
  '.exit': { kind: 'exit' },
  exit: { kind: 'exit' },
  '.quit': { kind: 'exit' },
  quit: { kind: 'exit' },
  q: { kind: 'exit' },
  '\\q': { kind: 'exit' },
  help: { kind: 'help' },
  '.help': { kind: 'help' },
  '\\?': { kind: 'help' },
  '\\h': { kind: 'help' },
  '.error': { kind: 'last-error' },
  '.clear': { kind: 'clear-screen' },
  '.clear history': { kind: 'clear-history' },
  'show tables': LIST_TABLES,
  '.tables': LIST_TABLES,
  '\\dt': LIST_TABLES,
  '\\d': LIST_TABLES,
};

const MODES: readonly DisplayMode[] = ['table', 'csv', 'json', 'line'];

/** The command a line is, if any (case and surrounding blanks ignored, an optional `;` allowed). */
export function parseReplCommand(line: string): ReplCommand | undefined {
  const trimmed = line.trim().replace(/\s*;$/, '');
  const normalized = trimmed.replace(/\s+/g, ' ').toLowerCase();
  const known = commands[normalized];
  if (known) return known;
  if (!/^[\\.][a-z?]/i.test(trimmed)) return undefined;
  const [word = '', ...rest] = trimmed.split(/\s+/);
  const name = word.toLowerCase();
  const argument = rest.join(' ');
  switch (name) {
    case '\\d':
    case '\\d+':
      return { kind: 'describe', table: argument, style: 'columns' };
    case '.schema':
      return argument === '' ? { kind: 'invalid', message: '.schema needs a table name: .schema orders' } : { kind: 'describe', table: argument, style: 'create' };
    case '\\x':
      return onOff(name, argument, (on) => ({ kind: 'expanded', on }));
    case '\\timing':
    case '.timer':
      return onOff(name, argument, (on) => ({ kind: 'timing', on }), name === '.timer');
    case '.mode': {
      const mode = argument.toLowerCase();
      if (mode === '') return { kind: 'mode', mode: undefined };
      return (MODES as readonly string[]).includes(mode) ? { kind: 'mode', mode: mode as DisplayMode } : { kind: 'invalid', message: `.mode ${argument}: not a mode; the modes are ${MODES.join(', ')}` };
    }
    default:
      // A dot at the start of SQL is never valid, so `.something` is a mistyped command; so is `\something`.
      return { kind: 'invalid', message: `Unknown command: ${word}. Type \\? or help for the commands.` };
  }
}

function onOff(name: string, argument: string, make: (on: boolean | undefined) => ReplCommand, required = false): ReplCommand {
  const value = argument.toLowerCase();
  if (value === '' && !required) return make(undefined);
  if (value === 'on') return make(true);
  if (value === 'off') return make(false);
  return { kind: 'invalid', message: `${name} takes on or off${required ? '' : ' (or nothing, to switch)'}` };
}

export const BANNER = "Welcome to the Quarry SQL REPL! Type 'help' for help.";
export const BANNER_HINT = 'show tables; -- list available tables';

export const REPL_HELP = `Enter SQL statements ending with ';' (they may span several lines).

Commands (no ';' needed):
  show tables, .tables, \\dt   list the tables you can query
  \\d NAME                     the columns of a table (name, type, nullable)
  .schema NAME                the table as a CREATE TABLE statement
  \\x [on|off]                 expanded rows: one block per row, a line per column
  .mode table|csv|json|line   how results are shown (csv and json: the runtime's encoding)
  \\timing, .timer on|off      show the time each query took (on at start)
  .error                      details of the last error
  .clear                      clear the screen
  .clear history              forget the query history
  help, .help, \\?             this text
  .exit, exit, quit, .quit, q, \\q
                              leave the REPL (Ctrl-D does too)

Keys: Tab completes keywords, tables and columns; Ctrl-R searches the history; Up and Down
recall whole statements. Ctrl-C cancels the running query or clears the line; on an empty
line, a second Ctrl-C leaves.
Results show at most 500 rows; the footer gives the total. Tables wider than the terminal
show their first and last columns; results longer than it go through a pager ($QUARRY_PAGER,
$PAGER, or less; QUARRY_PAGER= turns it off).
`;
