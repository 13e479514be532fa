import type { S3Client } from '@aws-sdk/client-s3';
import type { ObjectStore, StoredObject } from './types.js';

export interface S3StoreOptions {
  readonly bucket: string;
  /** Key prefix, without a leading slash, ending in `/` or empty. */
  readonly prefix: string;
  readonly region: string;
  /** An S3-compatible endpoint (path-style addressing); AWS when undefined. */
  readonly endpoint: string | undefined;
  readonly accessKeyId: string | undefined;
  readonly secretAccessKey: string | undefined;
  readonly location: string;
}

type S3Sdk = typeof import('@aws-sdk/client-s3');

/**
 * `s3://bucket/prefix/` object store. @aws-sdk/client-s3 (~200 ms to load) is imported on
 * the first request, not with this module, so a runtime that never uses S3 never loads it. Conditional writes use S3's `If-None-Match: *` (create
 * only) and `If-Match: <etag>` (replace only that version); a 412 or 409 answer is a lost race.
 */
export class S3ObjectStore implements ObjectStore {
  readonly location: string;
  readonly #options: S3StoreOptions;
  readonly #bucket: string;
  readonly #prefix: string;
  #connection: Promise<{ sdk: S3Sdk; client: S3Client }> | undefined;
  #client: S3Client | undefined;

  constructor(options: S3StoreOptions) {
    this.location = options.location;
    this.#options = options;
    this.#bucket = options.bucket;
    this.#prefix = options.prefix;
  }

  /** The SDK and the client, made once, on first use. */
  #connect(): Promise<{ sdk: S3Sdk; client: S3Client }> {
    this.#connection ??= import('@aws-sdk/client-s3').then((sdk) => {
      const options = this.#options;
      this.#client = new sdk.S3Client({
        region: options.region,
        endpoint: options.endpoint,
        forcePathStyle: options.endpoint !== undefined,
        credentials: options.accessKeyId !== undefined && options.secretAccessKey !== undefined ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } : undefined,
      });
      return { sdk, client: this.#client };
    });
    return this.#connection;
  }

  async get(key: string): Promise<StoredObject | undefined> {
    const { sdk, client } = await this.#connect();
    try {
      const answer = await client.send(new sdk.GetObjectCommand({ Bucket: this.#bucket, Key: this.#prefix + key }));
      const body = Buffer.from(await answer.Body!.transformToByteArray());
      return { body, version: answer.ETag ?? '' };
    } catch (error) {
      if (error instanceof sdk.S3ServiceException && (error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404)) return undefined;
      throw error;
    }
  }

  async put(key: string, body: Buffer): Promise<string> {
    const { sdk, client } = await this.#connect();
    const answer = await client.send(new sdk.PutObjectCommand({ Bucket: this.#bucket, Key: this.#prefix + key, Body: body }));
    return answer.ETag ?? '';
  }

  putIfAbsent(key: string, body: Buffer): Promise<string | undefined> {
    return this.#conditionalPut(key, body, { IfNoneMatch: '*' });
  }

  putIfMatch(key: string, body: Buffer, version: string): Promise<string | undefined> {
    return this.#conditionalPut(key, body, { IfMatch: version });
  }

  async delete(key: string): Promise<void> {
    const { sdk, client } = await this.#connect();
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.#bucket, Key: this.#prefix + key }));
  }

  async close(): Promise<void> {
    if (this.#connection) await this.#connection.catch(() => undefined);
    this.#client?.destroy();
  }

  async #conditionalPut(key: string, body: Buffer, condition: { IfNoneMatch?: string; IfMatch?: string }): Promise<string | undefined> {
    const { sdk, client } = await this.#connect();
    try {
      const answer = await client.send(new sdk.PutObjectCommand({ Bucket: this.#bucket, Key: this.#prefix + key, Body: body, ...condition }));
      return answer.ETag ?? '';
    } catch (error) {
      const status = error instanceof sdk.S3ServiceException ? error.$metadata.httpStatusCode : undefined;
      // 412 Precondition Failed: the condition did not hold; 409: a concurrent conditional write
      // won; 404 on If-Match: the object to replace is gone (S3 answers NoSuchKey, not 412).
      if (status === 412 || status === 409 || (status === 404 && condition.IfMatch !== undefined)) return undefined;
      throw error;
    }
  }
}
