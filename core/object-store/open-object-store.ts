import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QuarryError } from '../errors/quarry-error.js';
import { FileObjectStore } from './file-object-store.js';
import { S3ObjectStore } from './s3-object-store.js';
import type { ObjectStore } from './types.js';

/**
 * Opens the object store a `state_location` names: `file:///abs/dir/` or `file://rel/dir/`
 * (relative to the manifest directory), or `s3://bucket/prefix/` with `objstore_region`,
 * `objstore_key`, `objstore_secret` and, for an S3-compatible store, `objstore_endpoint`.
 */
export function openObjectStore(uri: string, params: Readonly<Record<string, string>>, baseDirectory: string): ObjectStore {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/(.*)$/.exec(uri);
  const scheme = match?.[1]?.toLowerCase();
  if (scheme === 'file') {
    const root = uri.startsWith('file:///') ? fileURLToPath(uri) : path.resolve(baseDirectory, match![2]!);
    return new FileObjectStore(root, uri);
  }
  if (scheme === 's3') {
    const rest = match![2]!;
    const slash = rest.indexOf('/');
    const bucket = slash < 0 ? rest : rest.slice(0, slash);
    const prefix = slash < 0 ? '' : rest.slice(slash + 1);
    const key = params['objstore_key'];
    const secret = params['objstore_secret'];
    if ((key === undefined) !== (secret === undefined)) {
      throw new QuarryError('MANIFEST_INVALID', `object store ${uri}: set both params.objstore_key and params.objstore_secret, or neither (then the AWS default credentials apply)`);
    }
    return new S3ObjectStore({
      bucket,
      prefix,
      region: params['objstore_region'] ?? 'us-east-1',
      endpoint: params['objstore_endpoint'],
      accessKeyId: key,
      secretAccessKey: secret,
      location: uri,
    });
  }
  throw new QuarryError('MANIFEST_INVALID', `object store ${uri}: expected a file:// or s3:// URI`);
}
