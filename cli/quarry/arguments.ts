import { parseArgs } from 'node:util';
import { DEFAULT_FLIGHT_ENDPOINT, DEFAULT_HTTP_ENDPOINT, parseEndpoint, requireHttpEndpoint, type Endpoint } from './endpoint.js';
import { UsageError } from './errors.js';

export const COMMAND_NAMES = ['sql', 'status', 'refresh'] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];
export type OutputFormat = 'table' | 'json' | 'csv' | 'ndjson';
export type RefreshMode = 'full' | 'append';

/** How to reach the runtime; shared by every command. */
export interface ConnectionOptions {
  endpoint: Endpoint;
  apiKey: string | undefined;
  /** `--header 'Name: value'` (repeatable) and $QUARRY_HEADERS, lower-case names: sent on every HTTP request and Flight call. */
  headers: Record<string, string>;
  /** PEM file of a private CA for https:// and grpc+tls:// endpoints. */
  caCertificateFile: string | undefined;
}

export type ParsedCommand =
  | { command: 'help'; topic: CommandName | undefined }
  | { command: 'version' }
  | { command: 'sql'; connection: ConnectionOptions; execute: string | undefined; output: OutputFormat }
  | { command: 'status'; connection: ConnectionOptions; watch: boolean }
  | { command: 'refresh'; connection: ConnectionOptions; dataset: string; refreshSql: string | undefined; refreshMode: RefreshMode | undefined };

/** Every flag of every command; which command accepts which is checked after parsing. */
const options = {
  endpoint: { type: 'string' },
  'api-key': { type: 'string' },
  header: { type: 'string', short: 'H', multiple: true },
  'tls-root-certificate-file': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  execute: { type: 'string', short: 'e' },
  output: { type: 'string', short: 'o' },
  'refresh-sql': { type: 'string' },
  'refresh-mode': { type: 'string' },
  watch: { type: 'boolean', short: 'w' },
} as const;

type OptionName = keyof typeof options;
const commonOptions: readonly OptionName[] = ['endpoint', 'api-key', 'header', 'tls-root-certificate-file', 'help'];
const commandOptions: Record<CommandName, readonly OptionName[]> = {
  sql: [...commonOptions, 'execute', 'output'],
  status: [...commonOptions, 'watch'],
  refresh: [...commonOptions, 'refresh-sql', 'refresh-mode'],
};
/**
 * The endpoint used without --endpoint. `sql` talks Arrow Flight SQL like `spice sql`;
 * `status` and `refresh` have no Flight counterpart, so they keep the HTTP API.
 */
export const DEFAULT_ENDPOINTS: Record<CommandName, string> = {
  sql: DEFAULT_FLIGHT_ENDPOINT,
  status: DEFAULT_HTTP_ENDPOINT,
  refresh: DEFAULT_HTTP_ENDPOINT,
};
const outputFormats: readonly OutputFormat[] = ['table', 'json', 'csv', 'ndjson'];
const refreshModes: readonly RefreshMode[] = ['full', 'append'];

/** Reads the command line (flags may come before or after the command) and the environment. */
export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedCommand {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: typeof options; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    // node's messages already name the flag ("Unknown option '--foo'"); keep them.
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [name, ...rest] = positionals;

  if (name === undefined) {
    if (values.version) return { command: 'version' };
    rejectFlags(values, ['help'], 'quarry');
    return { command: 'help', topic: undefined };
  }
  if (name === 'help') {
    const topic = rest[0];
    if (topic !== undefined && !isCommandName(topic)) throw new UsageError(`unknown command "${topic}" (commands: ${COMMAND_NAMES.join(', ')})`);
    return { command: 'help', topic };
  }
  if (!isCommandName(name)) throw new UsageError(`unknown command "${name}" (commands: ${COMMAND_NAMES.join(', ')})`);
  if (values.help) return { command: 'help', topic: name };
  rejectFlags(values, commandOptions[name], `quarry ${name}`);
  const connection = connectionOptions(values, env, name);
  // Checked here rather than when the command runs, so the usage hint is printed with it.
  if (name !== 'sql') requireHttpEndpoint(connection.endpoint, name);

  switch (name) {
    case 'sql': {
      expectPositionals(rest, 0, 'quarry sql');
      const output = values.output ?? 'table';
      if (!outputFormats.includes(output as OutputFormat)) throw new UsageError(`--output "${output}" is not one of ${outputFormats.join(', ')}`);
      if (values.execute !== undefined && values.execute.trim() === '') throw new UsageError('--execute needs a SQL statement');
      return { command: 'sql', connection, execute: values.execute, output: output as OutputFormat };
    }
    case 'status':
      expectPositionals(rest, 0, 'quarry status');
      return { command: 'status', connection, watch: values.watch === true };
    case 'refresh': {
      if (rest.length !== 1 || rest[0] === undefined || rest[0].trim() === '') {
        throw new UsageError(rest.length === 0 ? 'quarry refresh needs a dataset name' : `quarry refresh takes one dataset name, got ${rest.length}: ${rest.join(' ')}`);
      }
      const mode = values['refresh-mode'];
      if (mode !== undefined && !refreshModes.includes(mode as RefreshMode)) throw new UsageError(`--refresh-mode "${mode}" is not one of ${refreshModes.join(', ')}`);
      return { command: 'refresh', connection, dataset: rest[0], refreshSql: values['refresh-sql'], refreshMode: mode as RefreshMode | undefined };
    }
  }
}

function isCommandName(name: string): name is CommandName {
  return (COMMAND_NAMES as readonly string[]).includes(name);
}

/** A flag of another command is an error, not something to ignore silently. */
function rejectFlags(values: Partial<Record<OptionName, unknown>>, allowed: readonly OptionName[], where: string): void {
  for (const flag of Object.keys(values) as OptionName[]) {
    if (values[flag] !== undefined && !allowed.includes(flag)) throw new UsageError(`${where} does not take --${flag}`);
  }
}

function expectPositionals(rest: readonly string[], count: number, where: string): void {
  if (rest.length > count) throw new UsageError(`${where}: unexpected argument "${rest[count]}"`);
}

function connectionOptions(values: Partial<Record<OptionName, string | boolean | string[]>>, env: NodeJS.ProcessEnv, command: CommandName): ConnectionOptions {
  const endpoint = parseEndpoint(stringValue(values.endpoint) ?? DEFAULT_ENDPOINTS[command], new URL(DEFAULT_ENDPOINTS[command]).protocol.replace(':', ''));
  // An empty flag or variable means "no key", so `QUARRY_API_KEY= quarry ...` turns auth off.
  const apiKey = stringValue(values['api-key']) ?? env['QUARRY_API_KEY'];
  const caCertificateFile = stringValue(values['tls-root-certificate-file']);
  if (caCertificateFile !== undefined && !endpoint.tls) {
    throw new UsageError('--tls-root-certificate-file needs an https:// or grpc+tls:// --endpoint');
  }
  // The environment's headers first: a flag given on the command line wins for the same name.
  const headerLines = [...(env['QUARRY_HEADERS'] ?? '').split('\n').filter((line) => line.trim() !== ''), ...((values.header as string[] | undefined) ?? [])];
  return { endpoint, apiKey: apiKey === '' ? undefined : apiKey, headers: parseHeaders(headerLines), caCertificateFile };
}

/** An HTTP token: what a header name may hold (RFC 9110). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `Name: value` lines, as curl's `-H` takes them; names lower-cased (gRPC metadata allows no capitals). */
function parseHeaders(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon < 0 ? '' : line.slice(0, colon).trim();
    if (!HEADER_NAME.test(name)) throw new UsageError(`--header ${JSON.stringify(line)}: expected 'Name: value' (from --header or QUARRY_HEADERS, one per line)`);
    const value = line.slice(colon + 1).trim();
    if (/[\r\n\0]/.test(value)) throw new UsageError(`--header ${name}: the value may not hold line breaks or NUL`);
    headers[name.toLowerCase()] = value;
  }
  return headers;
}

function stringValue(value: string | boolean | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
