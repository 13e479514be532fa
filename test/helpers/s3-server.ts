import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
// Typed by ./s3rver.d.ts (s3rver ships no types).
import S3rver from 's3rver';

export interface S3TestServer {
  readonly endpoint: string;
  readonly client: S3Client;
  put(bucket: string, key: string, body: Buffer | string): Promise<void>;
  remove(bucket: string, key: string): Promise<void>;
  stop(): Promise<void>;
}

/** An in-process S3-compatible server (s3rver) on a free loopback port; credentials S3RVER/S3RVER. */
export async function startS3Server(buckets: readonly string[]): Promise<S3TestServer> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'quarry-s3rver-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  for (const bucket of buckets) await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    endpoint,
    client,
    async put(bucket, key, body) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    },
    async remove(bucket, key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    async stop() {
      client.destroy();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
