/** Shared manifests and keys of the access tests. The keys are test values, not secrets. */

export const KEYS = Object.freeze({
  /** Configured as `${ secrets:QUARRY_ACCESS_WRITER_KEY }:rw`: may write. */
  writer: 'writer-0f3a9c1e7b5d',
  /** Configured with `:ro`. */
  reader: 'reader-5b1d2e8f',
  /** Configured without a suffix: read-only. */
  plain: 'plain-reader-key',
  /** Configured as `odd:suffix`: an unknown suffix is part of the key (read-only). */
  colon: 'odd:suffix',
});

// The env secret store reads the process environment when the manifest loads.
process.env['QUARRY_ACCESS_WRITER_KEY'] = KEYS.writer;

export const ACCESS_FILES = { 'data/events.csv': 'id,label\n1,one\n2,two\n' };

/** An accelerated, writable dataset and API keys; `runtime` adds lines under `runtime:`. */
export function accessManifest(options: { keys?: boolean; runtime?: string } = {}): string {
  const auth = options.keys === false
    ? ''
    : `
  auth:
    api-key:
      keys:
        - \${ secrets:QUARRY_ACCESS_WRITER_KEY }:rw
        - ${KEYS.reader}:ro
        - ${KEYS.plain}
        - "${KEYS.colon}"`;
  return `
version: v2
kind: Spicepod
name: access
datasets:
  - from: file:data/events.csv
    name: events
    access: read_write
    acceleration:
      enabled: true
runtime:${auth}${options.runtime ?? ''}${auth === '' && !options.runtime ? ' {}' : ''}
`;
}
