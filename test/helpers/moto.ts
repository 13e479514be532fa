import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { S3Client, CreateBucketCommand } from '@aws-sdk/client-s3';
import { freePort } from './free-port.js';

/**
 * moto's S3 server (Python), when this machine has it: unlike s3rver it enforces conditional
 * writes (`If-None-Match: *`, `If-Match`) as S3 does. It is not an npm or Debian package, so
 * tests that need it are skipped where it is missing (they say so).
 */
export function motoAvailable(): boolean {
  return spawnSync('python3', ['-c', 'import moto.server'], { stdio: 'ignore' }).status === 0;
}

/**
 * moto's app served one request at a time. `moto_server` serves each request on a thread of
 * its own, and moto checks a conditional write's precondition before it stores the object:
 * two racing `If-Match` writes can both pass the check, and one update is lost (seen: 19 of
 * 20 racing joins kept). S3 decides the two atomically; one request at a time does too.
 */
const SERIAL_MOTO = [
  'import sys',
  'from werkzeug.serving import run_simple',
  'from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app',
  'run_simple(sys.argv[1], int(sys.argv[2]), DomainDispatcherApplication(create_backend_app), threaded=False)',
].join('\n');

/** Starts moto on a free loopback port with the given buckets; `close` stops it. */
export async function startMoto(buckets: readonly string[]): Promise<{ endpoint: string; close(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn('python3', ['-c', SERIAL_MOTO, '127.0.0.1', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if ((await fetch(`${endpoint}/moto-api/`).then((response) => response.status, () => 0)) !== 0) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`moto did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  for (const bucket of buckets) await client.send(new CreateBucketCommand({ Bucket: bucket }));
  client.destroy();
  return {
    endpoint,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
