/**
 * The runtime's log: one line per event on stderr, `time LEVEL [scope] message key=value`.
 * Levels follow runtime.output_level: `info` shows info/warn/error, `verbose` adds
 * debug, `very_verbose` adds trace. Callers must never pass secret values; the manifest
 * layer masks them before anything reaches here.
 */
export type OutputLevel = 'info' | 'verbose' | 'very_verbose';
export type LogLevel = 'error' | 'warn' | 'info' | 'debug' | 'trace';

const levelRank: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3, trace: 4 };
const outputRank: Record<OutputLevel, number> = { info: 2, verbose: 3, very_verbose: 4 };

export interface LogRecord {
  time: Date;
  level: LogLevel;
  scope: string;
  message: string;
  fields: Record<string, unknown> | undefined;
}

export type LogSink = (record: LogRecord) => void;

export interface Logger {
  error(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
  trace(message: string, fields?: Record<string, unknown>): void;
  /** A logger whose lines carry `[scope]`, e.g. a plugin's name. */
  child(scope: string): Logger;
  isEnabled(level: LogLevel): boolean;
  /** Changes the level for this logger and every child (the manifest's level is known only after loading). */
  setOutputLevel(level: OutputLevel): void;
}

function formatValue(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.message);
  if (typeof value === 'string') return /[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  if (typeof value === 'bigint') return value.toString();
  return JSON.stringify(value) ?? String(value);
}

export function formatRecord(record: LogRecord): string {
  const fields = record.fields
    ? Object.entries(record.fields)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => ` ${k}=${formatValue(v)}`)
        .join('')
    : '';
  const scope = record.scope ? ` [${record.scope}]` : '';
  return `${record.time.toISOString()} ${record.level.toUpperCase().padEnd(5)}${scope} ${record.message}${fields}`;
}

export const stderrSink: LogSink = (record) => {
  process.stderr.write(formatRecord(record) + '\n');
};

export function createLogger(options: { level?: OutputLevel; sink?: LogSink; scope?: string } = {}): Logger {
  const state = { rank: outputRank[options.level ?? 'info'] };
  const sink = options.sink ?? stderrSink;
  const make = (scope: string): Logger => {
    const emit = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
      if (levelRank[level] > state.rank) return;
      sink({ time: new Date(), level, scope, message, fields });
    };
    return {
      error: (m, f) => emit('error', m, f),
      warn: (m, f) => emit('warn', m, f),
      info: (m, f) => emit('info', m, f),
      debug: (m, f) => emit('debug', m, f),
      trace: (m, f) => emit('trace', m, f),
      child: (child) => make(scope ? `${scope}:${child}` : child),
      isEnabled: (level) => levelRank[level] <= state.rank,
      setOutputLevel: (level) => {
        state.rank = outputRank[level];
      },
    };
  };
  return make(options.scope ?? '');
}
