import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';

/**
 * A zero-row Parquet file with one VARCHAR column `placeholder`, written by DuckDB 1.5.6.
 * DuckDB binds a dataset's view when it is registered, before the first download, so the
 * mirror file must already be readable then.
 */
const EMPTY_PARQUET = Buffer.from(
  'UEFSMRUCGSw1ABgNZHVja2RiX3NjaGVtYRUCABUMJQIYC3BsYWNlaG9sZGVyJQAAFgAZDCgoRHVja0RCIHZlcnNpb24gdjEuNS42IChidWlsZCAwNjljYzlmOWI1KRkcHAAAAGAAAABQQVIx',
  'base64',
);

/**
 * The local copy of one dataset's upstream data, which DuckDB reads (it has no httpfs here).
 * A new copy is written beside it and renamed over it, so a reader sees the old file or the
 * new one, and a failed download leaves the old one in place.
 */
export class Mirror {
  readonly file: string;

  constructor(baseDirectory: string, datasetName: string, extension: 'csv' | 'json' | 'parquet') {
    const safe = datasetName.toLowerCase().replace(/[^a-z0-9_.-]+/g, '_');
    this.file = path.join(baseDirectory, '.quarry', 'mirror', `${safe}.${extension}`);
  }

  /** Creates an empty, readable mirror when none exists yet (no network I/O: called at resolve). */
  ensurePlaceholder(): void {
    if (existsSync(this.file)) return;
    mkdirSync(path.dirname(this.file), { recursive: true });
    writeFileSync(this.file, this.file.endsWith('.parquet') ? EMPTY_PARQUET : '');
  }

  /** Runs `write` against a temporary file and renames it over the mirror only when `write` succeeds. */
  async replace(write: (temporaryFile: string) => Promise<void>): Promise<void> {
    mkdirSync(path.dirname(this.file), { recursive: true });
    const temporary = `${this.file}.${randomUUID()}.partial`;
    try {
      await write(temporary);
      await rename(temporary, this.file);
    } finally {
      await rm(temporary, { force: true });
    }
  }
}

/** Writes rows as newline-delimited JSON into `file`, a chunk at a time. */
export class NdjsonWriter {
  readonly #file: string;
  #handle: Awaited<ReturnType<typeof open>> | undefined;
  #pending: string[] = [];
  #pendingLength = 0;
  rows = 0;

  constructor(file: string) {
    this.#file = file;
  }

  async write(row: unknown): Promise<void> {
    const line = `${JSON.stringify(row)}\n`;
    this.#pending.push(line);
    this.#pendingLength += line.length;
    this.rows++;
    if (this.#pendingLength > 1 << 20) await this.#flush();
  }

  async close(): Promise<void> {
    await this.#flush();
    this.#handle ??= await open(this.#file, 'w');
    await this.#handle.close();
  }

  async #flush(): Promise<void> {
    this.#handle ??= await open(this.#file, 'w');
    if (this.#pending.length > 0) await this.#handle.write(this.#pending.join(''));
    this.#pending = [];
    this.#pendingLength = 0;
  }
}
