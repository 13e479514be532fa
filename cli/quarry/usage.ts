import type { CommandName } from './arguments.js';

const HEADER_FLAG = `  -H, --header 'Name: value'        sent on every request (Flight: as call metadata), for auth
                                    schemes other than API keys; repeatable (also $QUARRY_HEADERS,
                                    one 'Name: value' per line)`;
const FLIGHT_KEY_AND_CA = `  --api-key KEY                     sent as X-API-Key over HTTP, as 'authorization: Bearer KEY'
                                    over Flight (default: $QUARRY_API_KEY)
${HEADER_FLAG}
  --tls-root-certificate-file PEM   CA certificate to trust for an https:// or grpc+tls:// endpoint`;
const HTTP_KEY_AND_CA = `  --api-key KEY                     sent as X-API-Key (default: $QUARRY_API_KEY)
${HEADER_FLAG}
  --tls-root-certificate-file PEM   CA certificate to trust for an https:// endpoint`;

const connectionFlags = (endpoint: string, keyAndCa: string) => `Connection options:
${endpoint}
${keyAndCa}
  -h, --help                        help for the command`;

const SQL_ENDPOINT = `  --endpoint URL                    the runtime (default grpc://127.0.0.1:50051): Arrow Flight SQL
                                    for grpc:// or grpc+tls://, the HTTP API for http:// or https://;
                                    without a scheme, port 50051 is grpc://, 8090 http://`;
const HTTP_ENDPOINT = `  --endpoint URL                    the runtime's HTTP API (default http://127.0.0.1:8090); http:// or https://`;
const ALL_ENDPOINTS = `  --endpoint URL                    the runtime: grpc:// or grpc+tls:// (Flight SQL; quarry sql only,
                                    its default grpc://127.0.0.1:50051), http:// or https:// (the HTTP API;
                                    default http://127.0.0.1:8090 for status and refresh)`;

export const MAIN_USAGE = `Usage: quarry <command> [options]

The client of a Quarry runtime (quarryd).

Commands:
  sql        interactive SQL REPL, or run one statement with -e
  status     show the runtime's listeners and datasets, with load progress
  refresh    refresh an accelerated dataset
  help       help for a command: quarry help sql

Options:
  --version  print the version

${connectionFlags(ALL_ENDPOINTS, FLIGHT_KEY_AND_CA)}
`;

const COMMAND_USAGE: Record<CommandName, string> = {
  sql: `Usage: quarry sql [options]

Without -e: an interactive REPL. End statements with ';' (they may span lines);
type 'help' or \\? inside for its commands (psql's \\d and DuckDB's .tables and .mode too). History is kept in ~/.quarry/query_history.txt
($QUARRY_HOME overrides the folder).

Options:
  -e, --execute SQL       run the SQL and exit: 0 on success, 1 when a statement fails
                          (several statements separated by ';' run in order)
  -o, --output FORMAT     table (default) | json | csv | ndjson; json and csv are the runtime's
                          own encoding; json of several statements is one array of their
                          results; ndjson is one JSON object per row, every statement's rows

${connectionFlags(SQL_ENDPOINT, FLIGHT_KEY_AND_CA)}
`,
  status: `Usage: quarry status [options]

Shows each listener of the runtime (http, flight, metrics, ...) with its endpoint and state,
then each dataset: its state, whether it is accelerated, and its load: a progress bar (rows
and bytes read, rate, time left) while one runs, what the last one loaded after.

Options:
  -w, --watch             redraw every second until Ctrl-C

${connectionFlags(HTTP_ENDPOINT, HTTP_KEY_AND_CA)}
`,
  refresh: `Usage: quarry refresh DATASET [options]

Refreshes the acceleration of DATASET now.

Options:
  --refresh-sql SQL       refresh with this SQL instead of the dataset's refresh_sql (this time only)
  --refresh-mode MODE     full | append (this time only)

${connectionFlags(HTTP_ENDPOINT, HTTP_KEY_AND_CA)}
`,
};

export function usageFor(topic: CommandName | undefined): string {
  return topic === undefined ? MAIN_USAGE : COMMAND_USAGE[topic];
}
