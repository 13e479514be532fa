import { z } from 'zod';

/**
 * The one parser for durations and sizes in the manifest and flags.
 * Durations: `500ms`, `1s`, `30s`, `5m`, `8h`, `1d`, and combinations such as `1m30s`.
 * Sizes: plain bytes (`1048576`) or a number with a unit, binary (`KiB`, `MiB`, `GiB`, `TiB`)
 * or decimal (`KB`, `MB`, `GB`, `TB`), e.g. `128MiB`, `4GiB`, `1.5GiB`.
 */
const durationUnits: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const sizeUnits: Record<string, number> = {
  b: 1,
  kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4,
  kb: 1000, mb: 1000 ** 2, gb: 1000 ** 3, tb: 1000 ** 4,
};

export const DURATION_EXAMPLE = 'e.g. 500ms, 30s, 5m, 8h or 1m30s';

/**
 * The longest duration the manifest accepts: the longest a Node timer can wait (2^31 - 1 ms,
 * about 24.8 days). A longer one would fire at once (Node warns and uses 1 ms): a refresh
 * interval of 720h refreshed 128 times in 10 s.
 */
export const MAX_DURATION_MS = 2 ** 31 - 1;
export const SIZE_EXAMPLE = 'e.g. 128MiB, 4GiB or 1048576 (bytes)';

/**
 * The forms parseDuration and parseSize read, as regular expressions for JSON Schema
 * (`docs/manifest.schema.json`): editors flag `30 seconds` as they type. Ranges (at most
 * MAX_DURATION_MS, 2^53 bytes) are left to the parsers. test/units/units.test.ts keeps each
 * pattern and its parser in agreement.
 */
export const DURATION_PATTERN = '^\\s*(?:0|(?:\\d+(?:\\.\\d+)?\\s*(?:ns|us|µs|ms|s|m|h|d))+)\\s*$';
export const SIZE_PATTERN = '^\\s*\\d+(?:\\.\\d+)?\\s*(?:[bB]|[kKmMgGtT][iI]?[bB])?\\s*$';

/** Milliseconds, or undefined when the text is not a duration or is longer than MAX_DURATION_MS. */
export function parseDuration(text: string): number | undefined {
  const ms = parseAnyDuration(text);
  return ms !== undefined && ms <= MAX_DURATION_MS ? ms : undefined;
}

function parseAnyDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (trimmed === '0') return 0;
  const part = /(\d+(?:\.\d+)?)\s*(ns|us|µs|ms|s|m|h|d)/gy;
  let total = 0;
  let consumed = 0;
  for (let match = part.exec(trimmed); match; match = part.exec(trimmed)) {
    total += Number(match[1]) * durationUnits[match[2]!]!;
    consumed = part.lastIndex;
  }
  return consumed === trimmed.length && consumed > 0 && Number.isFinite(total) ? total : undefined;
}

/** Bytes (rounded down), or undefined when the text is not a size or is over 2^53 bytes. */
export function parseSize(text: string | number): number | undefined {
  const bytes = parseAnySize(text);
  // Beyond 2^53 a size is no longer exact (and no machine has that much memory or disk).
  return bytes !== undefined && Number.isSafeInteger(bytes) ? bytes : undefined;
}

function parseAnySize(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isInteger(text) && text >= 0 ? text : undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!match) return undefined;
  const unit = match[2]!.toLowerCase();
  const factor = unit === '' ? 1 : sizeUnits[unit];
  if (factor === undefined) return undefined;
  return Math.floor(Number(match[1]) * factor);
}

/** Formats milliseconds back to the manifest's notation, for --check output and logs. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0) parts.push(`${rest}ms`);
  return parts.join('');
}

/** A size for logs: `21.2GiB`, `512MiB`, `300B` (rounded to one decimal). */
export function formatSizeApproximately(bytes: number): string {
  for (const [unit, size] of [['TiB', 1024 ** 4], ['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))}${unit}`;
  }
  return `${bytes}B`;
}

export function formatSize(bytes: number): string {
  for (const [unit, size] of [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return `${bytes}B`;
}

/** A manifest duration field: the text in, milliseconds out. */
export function durationSchema() {
  return boundedDurationSchema(MAX_DURATION_MS, `at most ${formatDuration(MAX_DURATION_MS)} (about 24.8 days, the longest the runtime can wait)`);
}

/** A duration field: the text (or 0) in, milliseconds out, refused past `maximumMs` with `tooLong`. */
function boundedDurationSchema(maximumMs: number, tooLong: string) {
  return z.union([z.string(), z.number()]).transform((value, context) => {
    const ms = typeof value === 'number' ? (value === 0 ? 0 : undefined) : parseAnyDuration(value);
    if (ms === undefined) {
      context.addIssue({ code: 'custom', message: `invalid duration ${JSON.stringify(value)}: use a number with a unit, ${DURATION_EXAMPLE}` });
      return z.NEVER;
    }
    if (ms > maximumMs) {
      context.addIssue({ code: 'custom', message: `duration ${JSON.stringify(value)} is too long: ${tooLong}` });
      return z.NEVER;
    }
    return ms;
  });
}

/** The longest span of data time accepted (100 years of 365 days): far beyond any data window. */
export const MAX_TIME_SPAN_MS = 100 * 365 * 24 * 60 * 60 * 1000;

/**
 * A manifest duration that measures data, not a wait (`retention_period: 90d`,
 * `refresh_data_window: 1y` written as `365d`): no timer holds it, so it is not bound by
 * MAX_DURATION_MS, only by MAX_TIME_SPAN_MS.
 */
export function timeSpanSchema() {
  return boundedDurationSchema(MAX_TIME_SPAN_MS, 'at most 36500d (100 years)');
}

/** A manifest size field: the text in, bytes out. */
export function sizeSchema() {
  return z.union([z.string(), z.number()]).transform((value, context) => {
    const bytes = parseAnySize(value);
    if (bytes === undefined) {
      context.addIssue({ code: 'custom', message: `invalid size ${JSON.stringify(value)}: use a number with a binary unit, ${SIZE_EXAMPLE}` });
      return z.NEVER;
    }
    if (!Number.isSafeInteger(bytes)) {
      context.addIssue({ code: 'custom', message: `size ${JSON.stringify(value)} is too large: at most 2^53 - 1 bytes (about 8 PiB)` });
      return z.NEVER;
    }
    return bytes;
  });
}
