// DuckDB runs its async work on libuv's thread pool; the default of 4 would cap concurrent queries.
process.env['UV_THREADPOOL_SIZE'] ??= '16';

import os from 'node:os';
import v8 from 'node:v8';
// Streaming large results makes gigabytes of short-lived buffers; with its small default
// heap target V8 then runs full collections back to back and throughput drops 3-5x.
// Letting the heap grow faster between collections keeps large streams steady (measured:
// Flight DoGet of 10M rows from 2-5M to 5.5M rows/s).
v8.setFlagsFromString('--heap-growing-percent=100');

import { checkReport } from './check-report.js';
import { createLogger } from '../../core/log.js';
import { isQuarryError, QuarryError } from '../../core/errors/quarry-error.js';
import { formatProblems } from '../../core/manifest/issues.js';
import { loadManifest } from '../../core/manifest/load.js';
import { Runtime } from '../../core/runtime.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { DAEMON_USAGE, UsageError, outputLevelFromEnvironment, parseDaemonArguments } from './args.js';
import { QUARRY_VERSION } from '../version.js';

async function main(argv: readonly string[]): Promise<number> {
  const args = parseDaemonArguments(argv);
  if (args.help) {
    process.stdout.write(DAEMON_USAGE);
    return 0;
  }
  if (args.version) {
    process.stdout.write(`quarryd ${QUARRY_VERSION}\n`);
    return 0;
  }
  const forcedLevel = args.outputLevel ?? outputLevelFromEnvironment(process.env);
  const log = createLogger({ level: forcedLevel ?? 'info' });
  // An executor needs no manifest: it fetches the app definition from a scheduler.
  const fetched = args.cluster.role === 'executor' && !args.manifestGiven ? await fetchFromScheduler(args.cluster, log) : undefined;
  const loaded = await loadManifest({ path: fetched?.manifestPath ?? args.manifestPath, baseDirectory: fetched?.baseDirectory, bundle: defaultPlugins(), setRuntime: args.setRuntime, collectUnresolvedSecrets: args.check });
  if (!forcedLevel) log.setOutputLevel(loaded.manifest.runtime.output_level);

  const runtime = new Runtime({ manifest: loaded.manifest, source: loaded.source, plugins: loaded.plugins, log, http: args.http, flight: args.flight, metrics: args.metrics, cluster: args.cluster });
  if (args.check) {
    for (const warning of loaded.warnings) process.stderr.write(`warning: ${warning}\n`);
    // What start-up would find without the network: unserved schemes, connector params, local
    // files, and the columns and SQL (refresh_sql, views) that read local sources.
    const checked = await runtime.checkSources();
    const problems = [...loaded.unresolvedSecrets, ...checked.problems];
    const unchecked = checked.unchecked;
    if (problems.length > 0) throw new QuarryError('MANIFEST_INVALID', formatProblems(loaded.source.file, problems), { details: { problems } });
    process.stdout.write(checkReport(loaded, unchecked));
    return 0;
  }
  for (const warning of loaded.warnings) log.warn(warning);

  let signals = 0;
  const exitCode = new Promise<number>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      signals += 1;
      if (signals > 1) {
        runtime.interruptQueries();
        exitNow(log, `second ${signal}: exiting at once`);
      }
      log.info(`${signal} received: shutting down (send it again to exit at once)`);
      runtime.stop().then(() => {
        // A statement the engine would not stop (one still being planned) would hold the exit for as long as it runs.
        if (runtime.runningStatements > 0) exitNow(log, 'a statement did not stop within shutdown_timeout: exiting without waiting for it');
        resolve(0);
      }, (error: unknown) => {
        log.error('shutdown failed', { error: (error as Error).message });
        resolve(1);
      });
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  // SIGHUP re-reads file-based TLS certificate, key and client CA (instead of Node's default: exit).
  process.on('SIGHUP', () => {
    log.info('SIGHUP received: reloading TLS certificates');
    runtime.reloadTls();
  });
  log.info('starting quarry', { version: QUARRY_VERSION, manifest: loaded.source.file, plugins: loaded.pluginOrigins.map((origin) => (origin.source === 'built-in' ? origin.name : `${origin.name}:${origin.source}`)).join(','), disabled: loaded.disabledPlugins.join(',') || undefined });
  await runtime.start();
  return exitCode;
}

/**
 * Ends the process now, without the teardown `process.exit` runs: with a statement still in
 * the engine (a 20,000-branch UNION being planned) that teardown waited for it, and the process
 * outlived a second SIGTERM by over a minute. The exit status is that of SIGKILL (137).
 */
function exitNow(log: ReturnType<typeof createLogger>, message: string): never {
  log.warn(message);
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable: SIGKILL did not end the process');
}

/** An executor without a manifest: the app definition from a scheduler, waiting for one to answer (a signal stops the wait). */
async function fetchFromScheduler(cluster: ReturnType<typeof parseDaemonArguments>['cluster'], log: ReturnType<typeof createLogger>): Promise<{ manifestPath: string; baseDirectory: string }> {
  const { fetchAppDefinition } = await import('../../plugins/scheduler/executor-bootstrap.js');
  const interrupted = new AbortController();
  const stop = () => interrupted.abort();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    return await fetchAppDefinition(cluster, cluster.nodeAdvertiseAddress ?? `${os.hostname()}-${process.pid}`, {
      signal: interrupted.signal,
      onRetry: (failures, retryInMs) => log.warn('no scheduler answered yet; asking again', { retry_in_ms: retryInMs, error: failures.join('; ') }),
    });
  } catch (error) {
    // Stopped while waiting: nothing was started, so this is a clean exit, not a failure.
    if (interrupted.signal.aborted) {
      log.info('stopped while waiting for a scheduler');
      process.exit(0);
    }
    throw error;
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`quarryd: ${(error as Error).message}\n\n${DAEMON_USAGE}`);
      process.exit(2);
    }
    const message = isQuarryError(error) ? `error [${error.code}]: ${error.message}` : `error: ${(error as Error).stack ?? String(error)}`;
    process.stderr.write(`${message}\n`);
    process.exit(1);
  },
);
