import path from 'node:path';
import { QuarryError } from '../../core/errors/quarry-error.js';
import type { ConnectorDataset } from '../../core/engine/sources/connector.js';
import { checkParamNames, choiceParam } from '../../core/engine/sources/connector-params.js';

export type S3Format = 'parquet' | 'csv' | 'json';

export const ACCEPTED_PARAMS = ['s3_region', 's3_endpoint', 's3_auth', 's3_key', 's3_secret', 'hive_partitioning_enabled', 'file_format'] as const;

const extensions: Record<S3Format, readonly string[]> = {
  parquet: ['.parquet', '.pq'],
  csv: ['.csv', '.tsv'],
  json: ['.json', '.jsonl', '.ndjson'],
};

/** A dataset's bucket, prefix and settings, validated (no network). */
export interface S3Settings {
  readonly bucket: string;
  /** The key prefix (a "folder" ending in `/`), or one object's key. */
  readonly prefix: string;
  readonly region: string;
  readonly endpoint: string | undefined;
  readonly auth: 'public' | 'key';
  readonly key: string | undefined;
  readonly secret: string | undefined;
  readonly hivePartitioning: boolean;
  readonly format: S3Format;
}

export function s3Settings(dataset: ConnectorDataset): S3Settings {
  checkParamNames(dataset, ACCEPTED_PARAMS, 'S3_PARAMS_INVALID');
  const match = /^\/\/([^/]+)\/?(.*)$/.exec(dataset.location);
  if (!match || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(match[1]!)) {
    throw new QuarryError('S3_PARAMS_INVALID', `dataset ${dataset.name}: from "${dataset.from}" must be s3://bucket/prefix/ (or s3://bucket/key.parquet) with a valid bucket name`);
  }
  const params = dataset.params;
  const auth = choiceParam(dataset, 's3_auth', ['public', 'key'] as const, params['s3_key'] !== undefined ? 'key' : 'public', 'S3_PARAMS_INVALID');
  if (auth === 'key' && (params['s3_key'] === undefined || params['s3_secret'] === undefined)) {
    throw new QuarryError('S3_PARAMS_INVALID', `dataset ${dataset.name}: s3_auth: key needs params.s3_key and params.s3_secret (use \${ secrets:NAME } for them)`);
  }
  const hive = choiceParam(dataset, 'hive_partitioning_enabled', ['true', 'false'] as const, 'false', 'S3_PARAMS_INVALID');
  const endpoint = params['s3_endpoint'];
  if (endpoint !== undefined && !/^https?:\/\/[^/]+/.test(endpoint)) {
    throw new QuarryError('S3_PARAMS_INVALID', `dataset ${dataset.name}: params.s3_endpoint "${endpoint}" must be a URL such as https://s3.example.com or http://127.0.0.1:9000`);
  }
  const prefix = match[2]!;
  return {
    bucket: match[1]!,
    prefix,
    region: params['s3_region'] ?? 'us-east-1',
    endpoint,
    auth,
    key: params['s3_key'],
    secret: params['s3_secret'],
    hivePartitioning: hive === 'true',
    format: format(dataset, prefix),
  };
}

function format(dataset: ConnectorDataset, prefix: string): S3Format {
  const declared = dataset.params['file_format']?.toLowerCase();
  if (declared !== undefined) {
    const normalised = declared === 'jsonl' || declared === 'ndjson' ? 'json' : declared;
    if (normalised === 'parquet' || normalised === 'csv' || normalised === 'json') return normalised;
    throw new QuarryError('S3_PARAMS_INVALID', `dataset ${dataset.name}: params.file_format is "${declared}"; accepted: parquet, csv, json`);
  }
  const extension = path.extname(prefix).toLowerCase();
  for (const [name, list] of Object.entries(extensions)) if (list.includes(extension)) return name as S3Format;
  return 'parquet';
}

/** Whether an object key is a data file of the dataset's format. */
export function isDataObject(key: string, format: S3Format): boolean {
  return extensions[format].includes(path.extname(key).toLowerCase());
}
