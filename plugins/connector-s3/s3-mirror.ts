import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { QuarryError } from '../../core/errors/quarry-error.js';
import type { Logger } from '../../core/log.js';
import { isDataObject, type S3Settings } from './s3-location.js';
import type { LoadProgressSink } from '../../core/engine/load-progress.js';

/** ETags of the objects mirrored so far, by path relative to the mirror. */
type MirrorIndex = Record<string, string>;

const INDEX_FILE = '.quarry-etags.json';

/**
 * A local copy of the data objects under a bucket prefix, kept by ETag: a synchronise lists the
 * prefix, downloads new or changed objects (to a temp name, then renamed into place, so a
 * reader never sees half a file) and removes objects that are gone. Paths below the prefix are
 * kept, so hive partition directories (`year=2024/`) survive.
 */
export class S3Mirror {
  readonly #settings: S3Settings;
  readonly #directory: string;
  readonly #client: S3Client;
  readonly #dataset: string;
  readonly #log: Logger;

  constructor(options: { settings: S3Settings; directory: string; dataset: string; log: Logger }) {
    this.#settings = options.settings;
    this.#directory = options.directory;
    this.#dataset = options.dataset;
    this.#log = options.log;
    const { settings } = options;
    this.#client = new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
      maxAttempts: 2,
      ...(settings.auth === 'key'
        ? { credentials: { accessKeyId: settings.key!, secretAccessKey: settings.secret! } }
        : // Public buckets: unsigned requests, no credentials looked up anywhere.
          { credentials: { accessKeyId: '', secretAccessKey: '' }, signer: { sign: (request) => Promise.resolve(request) } }),
    });
  }

  get directory(): string {
    return this.#directory;
  }

  /** Downloads what changed; a load's `progress` is told the bytes to fetch and each chunk as it arrives. */
  async synchronise(signal: AbortSignal, progress?: LoadProgressSink): Promise<void> {
    const started = performance.now();
    const sizes = new Map<string, number>();
    const remote = await this.#list(signal, sizes);
    if (remote.size === 0) {
      throw new QuarryError('S3_READ_FAILED', `dataset ${this.#dataset}: no ${this.#settings.format} objects under ${this.#location()}`);
    }
    await mkdir(this.#directory, { recursive: true });
    const index = await this.#readIndex();
    const changed = [...remote].filter(([key, etag]) => index[this.#relative(key)] !== etag);
    if (progress && changed.length > 0) progress.total({ bytes: changed.reduce((sum, [key]) => sum + (sizes.get(key) ?? 0), 0) });
    let downloaded = 0;
    for (const [key, etag] of changed) {
      const relative = this.#relative(key);
      await this.#download(key, relative, signal, progress);
      index[relative] = etag;
      downloaded++;
    }
    const wanted = new Set([...remote.keys()].map((key) => this.#relative(key)));
    let removed = 0;
    for (const relative of Object.keys(index)) {
      if (wanted.has(relative)) continue;
      await rm(path.join(this.#directory, relative), { force: true });
      delete index[relative];
      removed++;
    }
    await writeFile(path.join(this.#directory, INDEX_FILE), JSON.stringify(index));
    this.#log.debug('s3 mirror synchronised', { dataset: this.#dataset, objects: remote.size, downloaded, removed, ms: Math.round(performance.now() - started) });
  }

  async #list(signal: AbortSignal, sizes: Map<string, number>): Promise<Map<string, string>> {
    const objects = new Map<string, string>();
    let token: string | undefined;
    do {
      const page = await this.#failures(this.#client.send(new ListObjectsV2Command({ Bucket: this.#settings.bucket, Prefix: this.#settings.prefix, ContinuationToken: token }), { abortSignal: signal }));
      for (const object of page.Contents ?? []) {
        if (!object.Key || !isDataObject(object.Key, this.#settings.format)) continue;
        objects.set(object.Key, object.ETag ?? `${object.Size}:${object.LastModified?.toISOString()}`);
        sizes.set(object.Key, object.Size ?? 0);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return objects;
  }

  async #download(key: string, relative: string, signal: AbortSignal, progress: LoadProgressSink | undefined): Promise<void> {
    const target = path.join(this.#directory, relative);
    await mkdir(path.dirname(target), { recursive: true });
    const temporary = `${target}.download`;
    const response = await this.#failures(this.#client.send(new GetObjectCommand({ Bucket: this.#settings.bucket, Key: key }), { abortSignal: signal }));
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        progress?.read(0, chunk.length);
        done(null, chunk);
      },
    });
    await this.#failures(pipeline(response.Body as Readable, counted, createWriteStream(temporary), { signal }));
    await rename(temporary, target);
  }

  /** The key below the prefix (a single-object dataset keeps its file name), never escaping the mirror. */
  #relative(key: string): string {
    const prefix = this.#settings.prefix;
    const below = prefix.endsWith('/') || prefix === '' ? key.slice(prefix.length) : path.posix.basename(key);
    const normalised = path.posix.normalize(below).replace(/^(\.\.\/)+/, '');
    return normalised === '' || normalised === '.' ? path.posix.basename(key) : normalised;
  }

  async #readIndex(): Promise<MirrorIndex> {
    try {
      return JSON.parse(await readFile(path.join(this.#directory, INDEX_FILE), 'utf8')) as MirrorIndex;
    } catch {
      return {};
    }
  }

  async #failures<T>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (error) {
      const name = (error as { name?: string }).name;
      const message = (error as Error).message || name || 'unknown error';
      throw new QuarryError('S3_READ_FAILED', `dataset ${this.#dataset}: ${this.#location()}: ${name && !message.includes(name) ? `${name}: ` : ''}${message}`, { cause: error });
    }
  }

  #location(): string {
    return `s3://${this.#settings.bucket}/${this.#settings.prefix}${this.#settings.endpoint ? ` at ${this.#settings.endpoint}` : ''}`;
  }

  close(): void {
    this.#client.destroy();
  }
}
