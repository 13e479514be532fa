import { randomUUID } from 'node:crypto';
import { link, mkdir, readdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ObjectStore, StoredObject } from './types.js';

/** Versions kept behind the newest, so a reader that listed a moment ago still finds its file. */
const KEPT_VERSIONS = 4;

export interface FileObjectStoreTiming {
  /** A version read longer ago than this no longer matches (the writer must read again). Default 30 s. */
  readonly staleReadMs: number;
  /** Old versions are deleted only once their file is older than this; must exceed staleReadMs. Default 60 s. */
  readonly collectAfterMs: number;
}
const TOMBSTONE = Buffer.from('\u0000quarry-object-deleted\u0000');

/**
 * `file://` object store with atomic compare-and-swap across processes. Each key is a
 * directory of numbered versions; a write creates version n+1 with link(2), which fails with
 * EEXIST when another writer created it first, so exactly one of racing writers wins and the
 * file it links is complete before it becomes visible. Deletion writes a tombstone version,
 * so version numbers never repeat (no ABA).
 *
 * Old versions are collected, which could let a writer holding a very old version re-create a
 * collected successor unseen (a lost update). Versions therefore carry the time they were
 * read, expire after `staleReadMs`, and a file is collected only once older than
 * `collectAfterMs`: a successor created after the read cannot be collected before the read
 * expires. (Clocks of the writers and of the file system must roughly agree.)
 */
export class FileObjectStore implements ObjectStore {
  readonly location: string;
  readonly #root: string;
  readonly #timing: FileObjectStoreTiming;

  constructor(root: string, location = `file://${root}`, timing: FileObjectStoreTiming = { staleReadMs: 30_000, collectAfterMs: 60_000 }) {
    this.#root = root;
    this.location = location;
    this.#timing = timing;
  }

  async get(key: string): Promise<StoredObject | undefined> {
    const directory = this.#directory(key);
    for (let attempt = 0; ; attempt++) {
      const latest = await this.#latest(directory);
      if (latest === undefined) return undefined;
      try {
        const body = await readFile(path.join(directory, versionName(latest)));
        return body.equals(TOMBSTONE) ? undefined : { body, version: versionToken(latest) };
      } catch (error) {
        // Collected by a writer between listing and reading: list again.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt > 10) throw error;
      }
    }
  }

  async put(key: string, body: Buffer): Promise<string> {
    for (;;) {
      const directory = this.#directory(key);
      const latest = (await this.#latest(directory)) ?? 0;
      const written = await this.#create(directory, latest + 1, body);
      if (written !== undefined) return written;
    }
  }

  async putIfAbsent(key: string, body: Buffer): Promise<string | undefined> {
    const directory = this.#directory(key);
    const latest = await this.#latest(directory);
    if (latest !== undefined && !(await this.#isTombstone(directory, latest))) return undefined;
    return this.#create(directory, (latest ?? 0) + 1, body);
  }

  async putIfMatch(key: string, body: Buffer, version: string): Promise<string | undefined> {
    const match = /^(\d+):(\d+)$/.exec(version);
    if (!match) return undefined;
    const expected = Number(match[1]);
    if (expected < 1 || Date.now() - Number(match[2]) > this.#timing.staleReadMs) return undefined;
    const directory = this.#directory(key);
    // The version must be one of this key's: a token from another key (or a key never written)
    // would otherwise create its successor from nothing. A collected version has successors,
    // so its successor's link fails anyway.
    if (!(await stat(path.join(directory, versionName(expected))).then(() => true, () => false))) return undefined;
    return this.#create(directory, expected + 1, body);
  }

  async delete(key: string): Promise<void> {
    const directory = this.#directory(key);
    for (;;) {
      const latest = await this.#latest(directory);
      if (latest === undefined || (await this.#isTombstone(directory, latest))) return;
      if ((await this.#create(directory, latest + 1, TOMBSTONE)) !== undefined) return;
    }
  }

  #directory(key: string): string {
    const parts = key.split('/');
    if (key === '' || parts.some((part) => part === '' || part === '.' || part === '..')) {
      throw new Error(`object key "${key}" is not a relative path of non-empty segments`);
    }
    return path.join(this.#root, ...parts.slice(0, -1), `${parts[parts.length - 1]}.versions`);
  }

  async #latest(directory: string): Promise<number | undefined> {
    let names: string[];
    try {
      names = await readdir(directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    let latest: number | undefined;
    for (const name of names) {
      if (!/^\d{12}$/.test(name)) continue;
      const version = Number(name);
      if (latest === undefined || version > latest) latest = version;
    }
    return latest;
  }

  async #isTombstone(directory: string, version: number): Promise<boolean> {
    try {
      return (await readFile(path.join(directory, versionName(version)))).equals(TOMBSTONE);
    } catch {
      return false;
    }
  }

  /** Creates `version` atomically; undefined when it already exists (another writer won). */
  async #create(directory: string, version: number, body: Buffer): Promise<string | undefined> {
    await mkdir(directory, { recursive: true });
    const temporary = path.join(directory, `.tmp-${randomUUID()}`);
    await writeFile(temporary, body);
    try {
      await link(temporary, path.join(directory, versionName(version)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
      throw error;
    } finally {
      await unlink(temporary).catch(() => undefined);
    }
    await this.#collect(directory, version);
    return versionToken(version);
  }

  async #collect(directory: string, newest: number): Promise<void> {
    const names = await readdir(directory).catch(() => [] as string[]);
    const now = Date.now();
    await Promise.all(
      names
        .filter((name) => /^\d{12}$/.test(name) && Number(name) <= newest - KEPT_VERSIONS)
        .map(async (name) => {
          const file = path.join(directory, name);
          const age = now - (await stat(file).then((info) => info.mtimeMs, () => now));
          if (age > this.#timing.collectAfterMs) await unlink(file).catch(() => undefined);
        }),
    );
  }
}

/** A version as handed out: the sequence number and when it was read or written. */
function versionToken(version: number): string {
  return `${version}:${Date.now()}`;
}

function versionName(version: number): string {
  return String(version).padStart(12, '0');
}
