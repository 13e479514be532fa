import { parseArgs } from 'node:util';
import type { OutputLevel } from '../../core/log.js';
import type { ClusterNodeOptions } from '../../core/plugins/types.js';

export interface DaemonArguments {
  manifestPath: string;
  /** Whether MANIFEST was given (an executor without one fetches the app definition). */
  manifestGiven: boolean;
  cluster: ClusterNodeOptions;
  http: string;
  flight: string;
  metrics: string | undefined;
  check: boolean;
  setRuntime: string[];
  outputLevel: OutputLevel | undefined;
  help: boolean;
  version: boolean;
}

export const DAEMON_USAGE = `Usage: quarryd [MANIFEST] [options]

Serves the datasets of a manifest (a file, or a directory holding quarry.yaml or
spicepod.yaml; default: the current directory) as SQL over HTTP and Arrow Flight SQL
(and MCP at /v1/mcp; Prometheus metrics with --metrics).

Options:
  --http ADDR                  HTTP listen address (default 127.0.0.1:8090)
  --flight ADDR                Flight SQL listen address (default 127.0.0.1:50051)
  --metrics ADDR               Prometheus metrics listen address (off unless given)
  --role scheduler|executor    cluster mode (a manifest with runtime.scheduler implies scheduler)
  --scheduler-address URL      a scheduler's node address, e.g. grpc://10.0.0.5:50052 (repeatable;
                               implies --role executor; an executor needs no MANIFEST)
  --node-bind-address ADDR     node-to-node listener (mTLS), e.g. 0.0.0.0:50052 (an executor
                               without it listens on 127.0.0.1, free port: one machine only)
  --node-advertise-address A   how other nodes reach this one (also its node id)
  --node-mtls-ca-certificate-file PATH
  --node-mtls-certificate-file PATH
  --node-mtls-key-file PATH    node-to-node mutual TLS: the node CA, this node's certificate and key
  --allow-insecure-connections plaintext node-to-node traffic (development only)
  --check                      validate the manifest, print the resolved configuration
                               (secrets masked) and exit: 0 when valid, 1 otherwise
  --set-runtime PATH=VALUE     override one runtime field, e.g. --set-runtime query.memory_limit=2GiB
                               (repeatable)
  --tls-enabled true|false     override runtime.tls.enabled
  --tls-certificate PEM        inline certificate (or --tls-certificate-file PATH)
  --tls-key PEM                inline private key (or --tls-key-file PATH)
  --tls-client-auth-mode MODE  none | request | required (client certificates, mTLS)
  --tls-client-auth-ca-file PATH
                               PEM CA bundle client certificates are verified against
  -v, -vv, --very-verbose      more logging (beats QUARRY_OUTPUT_LEVEL and runtime.output_level)
  --output-level LEVEL         info | verbose | very_verbose
  -h, --help                   this text
  --version                    the version

Signals:
  SIGTERM, SIGINT              drain in-flight work and stop (a second one: exit at once)
  SIGHUP                       re-read file-based TLS certificate, key and client CA
`;

const levels: readonly OutputLevel[] = ['info', 'verbose', 'very_verbose'];

export class UsageError extends Error {}

export function parseDaemonArguments(argv: readonly string[]): DaemonArguments {
  // `-vv` is one flag to users; node's parser would read it as `-v -v`, which is what we count.
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      http: { type: 'string' },
      flight: { type: 'string' },
      metrics: { type: 'string' },
      check: { type: 'boolean' },
      role: { type: 'string' },
      'scheduler-address': { type: 'string', multiple: true },
      'node-bind-address': { type: 'string' },
      'node-advertise-address': { type: 'string' },
      'node-mtls-ca-certificate-file': { type: 'string' },
      'node-mtls-certificate-file': { type: 'string' },
      'node-mtls-key-file': { type: 'string' },
      'allow-insecure-connections': { type: 'boolean' },
      'set-runtime': { type: 'string', multiple: true },
      'tls-enabled': { type: 'string' },
      'tls-certificate': { type: 'string' },
      'tls-certificate-file': { type: 'string' },
      'tls-key': { type: 'string' },
      'tls-key-file': { type: 'string' },
      'tls-client-auth-mode': { type: 'string' },
      'tls-client-auth-ca-file': { type: 'string' },
      verbose: { type: 'boolean', short: 'v', multiple: true },
      'very-verbose': { type: 'boolean' },
      'output-level': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean' },
    },
  });
  if (positionals.length > 1) throw new UsageError(`expected one manifest path, got ${positionals.length}: ${positionals.join(' ')}`);
  const verbosity = values['very-verbose'] ? 2 : (values.verbose?.length ?? 0);
  let outputLevel: OutputLevel | undefined = verbosity >= 2 ? 'very_verbose' : verbosity === 1 ? 'verbose' : undefined;
  if (values['output-level'] !== undefined) {
    if (!levels.includes(values['output-level'] as OutputLevel)) {
      throw new UsageError(`--output-level "${values['output-level']}" is not one of ${levels.join(', ')}`);
    }
    outputLevel = values['output-level'] as OutputLevel;
  }
  const role = values.role;
  if (role !== undefined && role !== 'scheduler' && role !== 'executor') throw new UsageError(`--role "${role}" is not one of scheduler, executor`);
  const schedulerAddresses = values['scheduler-address'] ?? [];
  if (role === 'scheduler' && schedulerAddresses.length > 0) throw new UsageError('--scheduler-address is for executors; a scheduler (--role scheduler) takes none');
  return {
    manifestPath: positionals[0] ?? '.',
    manifestGiven: positionals[0] !== undefined,
    cluster: {
      role: role ?? (schedulerAddresses.length > 0 ? 'executor' : undefined),
      schedulerAddresses,
      nodeBindAddress: values['node-bind-address'],
      nodeAdvertiseAddress: values['node-advertise-address'],
      mtlsCaCertificateFile: values['node-mtls-ca-certificate-file'],
      mtlsCertificateFile: values['node-mtls-certificate-file'],
      mtlsKeyFile: values['node-mtls-key-file'],
      allowInsecureConnections: values['allow-insecure-connections'] ?? false,
    },
    http: values.http ?? '127.0.0.1:8090',
    flight: values.flight ?? '127.0.0.1:50051',
    metrics: values.metrics,
    check: values.check ?? false,
    setRuntime: [...(values['set-runtime'] ?? []), ...tlsOverrides(values)],
    outputLevel,
    help: values.help ?? false,
    version: values.version ?? false,
  };
}

/** TLS flags beat the manifest: they become runtime overrides (values JSON-quoted so PEM newlines survive). */
function tlsOverrides(values: Record<string, unknown>): string[] {
  const overrides: string[] = [];
  const enabled = values['tls-enabled'];
  if (enabled !== undefined) {
    if (enabled !== 'true' && enabled !== 'false') throw new UsageError(`--tls-enabled takes true or false, got "${String(enabled)}"`);
    overrides.push(`tls.enabled=${enabled}`);
  }
  for (const [flag, field] of [
    ['tls-certificate', 'certificate'],
    ['tls-certificate-file', 'certificate_file'],
    ['tls-key', 'key'],
    ['tls-key-file', 'key_file'],
    ['tls-client-auth-mode', 'client_auth_mode'],
    ['tls-client-auth-ca-file', 'client_auth_ca_file'],
  ] as const) {
    const value = values[flag];
    if (typeof value === 'string') overrides.push(`tls.${field}=${JSON.stringify(value)}`);
  }
  return overrides;
}

export function outputLevelFromEnvironment(env: NodeJS.ProcessEnv): OutputLevel | undefined {
  const value = env['QUARRY_OUTPUT_LEVEL'];
  if (value === undefined || value === '') return undefined;
  if (!levels.includes(value as OutputLevel)) throw new UsageError(`QUARRY_OUTPUT_LEVEL "${value}" is not one of ${levels.join(', ')}`);
  return value as OutputLevel;
}
