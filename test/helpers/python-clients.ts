import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, rmdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import { repositoryRoot } from './runtime.js';

/**
 * The independent clients of the conformance suite: pyarrow (Arrow C++ Flight), the Python
 * MCP SDK, and the protobuf compiler for the Flight SQL messages. They come from the machine's
 * Python package index (`pip install`); .ci/run installs them before the suite, and a test file
 * installs what is still missing. Where they cannot be had, the suite is skipped with the
 * reason, except under CI (CI=true), where a missing client is a failure: the proof must run.
 */
export const CONFORMANCE_PACKAGES: Record<string, string> = {
  pyarrow: 'pyarrow',
  'pyarrow.flight': 'pyarrow',
  mcp: 'mcp',
  grpc_tools: 'grpcio-tools',
  'google.protobuf': 'protobuf',
  jsonschema: 'jsonschema',
  // Builds the tiny embedding model of the search tests (test/fixtures/search/tiny_embedding_model.py).
  onnx: 'onnx',
  // OpenAI's own SDK, against POST /v1/embeddings (test/conformance/python/search_cases.py).
  openai: 'openai',
};

export type PythonClients = { available: true } | { available: false; reason: string };

function missingModules(): string[] {
  return Object.keys(CONFORMANCE_PACKAGES).filter((module) => spawnSync('python3', ['-c', `import ${module}`], { stdio: 'ignore' }).status !== 0);
}

/** Installs the missing packages once per machine at a time (test files run in parallel processes). */
async function install(packages: string[]): Promise<string> {
  const lock = path.join(repositoryRoot, 'test/.generated/pip-install.lock');
  mkdirSync(path.dirname(lock), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another test process installs: wait for it, then look again.
      await new Promise((resolve) => setTimeout(resolve, 250));
      if (missingModules().length === 0) return '';
    }
  }
  try {
    const pip = spawnSync('python3', ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--retries', '1', '--timeout', '20', ...packages], { encoding: 'utf8' });
    return pip.status === 0 ? '' : `${pip.stderr}`.trim().split('\n').slice(-3).join(' ');
  } finally {
    rmdirSync(lock);
  }
}

let checked: Promise<PythonClients> | undefined;

/** Whether python3 has the independent clients, installing them if needed. */
export function pythonClients(): Promise<PythonClients> {
  return (checked ??= (async () => {
    if (spawnSync('python3', ['--version'], { stdio: 'ignore' }).status !== 0) return { available: false, reason: 'python3 is not installed' };
    let missing = missingModules();
    if (missing.length === 0) return { available: true };
    const packages = [...new Set(missing.map((module) => CONFORMANCE_PACKAGES[module]!))];
    const failure = await install(packages);
    missing = missingModules();
    if (missing.length === 0) return { available: true };
    return { available: false, reason: `python3 lacks ${missing.join(', ')} and \`pip install ${packages.join(' ')}\` did not provide them${failure ? `: ${failure}` : ''}` };
  })());
}

/**
 * For a test that needs the Python clients: true when they are there. Otherwise the test
 * fails under CI (the proof must run) and passes with the reason logged elsewhere.
 */
export async function pythonClientsFor(t: ExecutionContext): Promise<boolean> {
  const clients = await pythonClients();
  if (clients.available) return true;
  if (process.env['CI'] === 'true') t.fail(clients.reason);
  else t.log(`skipped: ${clients.reason}`);
  t.pass();
  return false;
}

/**
 * Compiles the Flight and Flight SQL messages for Python (grpc_tools' protoc) into
 * test/.generated/python; returns that directory. proto/ holds Arrow's published messages
 * (the same names, field numbers and types as Arrow's FlightSql.proto and Flight.proto).
 */
export function generatedFlightSqlModules(): string {
  const out = path.join(repositoryRoot, 'test/.generated/python');
  const modules = ['arrow/flight/protocol/sql/flight_sql_pb2.py', 'arrow/flight/protocol/flight_pb2.py'];
  if (modules.every((module) => existsSync(path.join(out, module)))) return out;
  mkdirSync(out, { recursive: true });
  const protos = ['arrow/flight/protocol/sql/flight_sql.proto', 'arrow/flight/protocol/flight.proto'].map((proto) => path.join(repositoryRoot, 'proto', proto));
  const compiled = spawnSync('python3', ['-m', 'grpc_tools.protoc', `-I${path.join(repositoryRoot, 'proto')}`, `--python_out=${out}`, ...protos], { encoding: 'utf8' });
  if (compiled.status !== 0) throw new Error(`grpc_tools.protoc failed: ${compiled.stderr}`);
  return out;
}

export interface CaseOutcome {
  case: string;
  ok: boolean;
  error?: string;
  seconds?: number;
}

/** Runs a script of test/conformance/python to its end (SIGKILL after `timeoutMs`). */
export function runPythonScript(script: string, args: string[], options: { timeoutMs?: number } = {}): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn('python3', [path.join(repositoryRoot, 'test/conformance/python', script), ...args], { cwd: repositoryRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 240_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
  });
}

/** Runs a Python case script; each JSON line it prints is one case's outcome. */
export async function runPythonCases(script: string, args: string[], options: { timeoutMs?: number } = {}): Promise<{ outcomes: Map<string, CaseOutcome>; stderr: string; code: number | null }> {
  const { stdout, stderr, code } = await runPythonScript(script, args, options);
  const outcomes = new Map<string, CaseOutcome>();
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const outcome = JSON.parse(line) as CaseOutcome;
    outcomes.set(outcome.case, outcome);
  }
  return { outcomes, stderr, code };
}
