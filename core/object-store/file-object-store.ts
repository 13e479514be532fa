import { randomUUID } from 'node:crypto';
import { link, mkdir, readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ObjectStore, StoredObject } from './types.js';

/** Versions kept behind the newest, so a reader that listed a moment ago still finds its file. */
const KEPT_VERSIONS = 4;
const TOMBSTONE = Buffer.from('\u0000quarry-object-deleted\u0000');

/**
 * `file://` object store with atomic compare-and-swap across processes. Each key is a
 * directory of numbered versions; a write creates version n+1 with link(2), which fails with
 * EEXIST when another writer created it first, so exactly one of racing writers wins and the
 * file it links is complete before it becomes visible. Deletion writes a tombstone version,
 * so version numbers never repeat (no ABA).
 */
export class FileObjectStore implements ObjectStore {
  readonly location: string;
  readonly #root: string;

  constructor(root: string, location = `file://${root}`) {
    this.#root = root;
    this.location = location;
  }

  async get(key: string): Promise<StoredObject | undefined> {
    const directory = this.#directory(key);
    for (let attempt = 0; ; attempt++) {
      const latest = await this.#latest(directory);
      if (latest === undefined) return undefined;
      try {
        const body = await readFile(path.join(directory, versionName(latest)));
        return body.equals(TOMBSTONE) ? undefined : { body, version: String(latest) };
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
    const expected = Number(version);
    if (!Number.isSafeInteger(expected) || expected < 1) return undefined;
    return this.#create(this.#directory(key), expected + 1, body);
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
    return String(version);
  }

  async #collect(directory: string, newest: number): Promise<void> {
    const names = await readdir(directory).catch(() => [] as string[]);
    await Promise.all(
      names
        .filter((name) => /^\d{12}$/.test(name) && Number(name) <= newest - KEPT_VERSIONS)
        .map((name) => unlink(path.join(directory, name)).catch(() => undefined)),
    );
  }
}

function versionName(version: number): string {
  return String(version).padStart(12, '0');
}
