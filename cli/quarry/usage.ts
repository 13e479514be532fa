import type { CommandName } from './arguments.js';

const CONNECTION_FLAGS = `Connection options (every command):
  --endpoint URL                    the runtime (default http://127.0.0.1:8090); http:// or https://
                                    (grpc:// and grpc+tls:// Flight endpoints are not supported yet)
  --api-key KEY                     sent as X-API-Key (default: $QUARRY_API_KEY)
  --tls-root-certificate-file PEM   CA certificate to trust for an https:// endpoint
  -h, --help                        help for the command`;

export const MAIN_USAGE = `Usage: quarry <command> [options]

The client of a Quarry runtime (quarryd).

Commands:
  sql        interactive SQL REPL, or run one statement with -e
  status     show the runtime's listeners and their state
  refresh    refresh an accelerated dataset
  help       help for a command: quarry help sql

Options:
  --version  print the version

${CONNECTION_FLAGS}
`;

const COMMAND_USAGE: Record<CommandName, string> = {
  sql: `Usage: quarry sql [options]

Without -e: an interactive REPL. End statements with ';' (they may span lines);
type 'help' inside for its commands. History is kept in ~/.quarry/query_history.txt
($QUARRY_HOME overrides the folder).

Options:
  -e, --execute SQL       run the SQL and exit: 0 on success, 1 when a statement fails
                          (several statements separated by ';' run in order)
  -o, --output FORMAT     table (default) | json | csv; json and csv are the runtime's own encoding

${CONNECTION_FLAGS}
`,
  status: `Usage: quarry status [options]

Shows each listener of the runtime (http, flight, metrics, ...) with its endpoint and state.

${CONNECTION_FLAGS}
`,
  refresh: `Usage: quarry refresh DATASET [options]

Refreshes the acceleration of DATASET now.

Options:
  --refresh-sql SQL       refresh with this SQL instead of the dataset's refresh_sql (this time only)
  --refresh-mode MODE     full | append (this time only)

${CONNECTION_FLAGS}
`,
};

export function usageFor(topic: CommandName | undefined): string {
  return topic === undefined ? MAIN_USAGE : COMMAND_USAGE[topic];
}
