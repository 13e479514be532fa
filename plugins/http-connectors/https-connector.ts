import path from 'node:path';
import type { DatasetConnector, EngineSource } from '../../core/engine/sources/connector.js';
import { quoteLiteral } from '../../core/engine/sql-text.js';
import type { OutboundClient } from '../../core/outbound/client.js';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { basicAuthorization, clientTimeoutMs, invalidParam, maxRetries, parseHeaders, type Params } from './connection-params.js';
import { Mirror } from './mirror.js';

type Format = 'csv' | 'json' | 'parquet';

const formatsByExtension: Record<string, Format> = {
  '.csv': 'csv',
  '.tsv': 'csv',
  '.json': 'json',
  '.jsonl': 'json',
  '.ndjson': 'json',
  '.parquet': 'parquet',
  '.pq': 'parquet',
};

/**
 * `https://host/path` and `http://host/path`: a CSV, JSON (array or newline-delimited) or
 * Parquet file, or a JSON API. Each synchronise downloads it as is into a local mirror that
 * DuckDB reads; a failed download throws and the previous mirror stays.
 */
export function createHttpsConnector(outbound: OutboundClient): DatasetConnector {
  return {
    schemes: ['https', 'http'],
    resolve(dataset): EngineSource {
      const url = parseUrl(dataset.name, dataset.from);
      const params = dataset.params;
      const format = chooseFormat(dataset.name, url, params);
      const headers = parseHeaders(dataset.name, 'http_headers', params['http_headers']);
      const user = params['http_username'];
      const password = params['http_password'];
      if ((user === undefined) !== (password === undefined)) {
        throw new QuarryError('HTTP_SOURCE_PARAM_INVALID', `dataset ${dataset.name}: set both params.http_username and params.http_password for basic authentication, or neither`);
      }
      if (user !== undefined && password !== undefined) headers['Authorization'] = basicAuthorization(user, password);
      const timeoutMs = clientTimeoutMs(dataset.name, params);
      const retries = maxRetries(dataset.name, params);
      const mirror = new Mirror(dataset.baseDirectory, dataset.name, format);
      mirror.ensurePlaceholder();
      return {
        kind: 'engine',
        tableExpression: readExpression(format, mirror.file, params, url),
        allowedPaths: [mirror.file],
        allowedDirectories: [],
        async synchronise(signal) {
          await mirror.replace(async (temporary) => {
            await outbound.request({
              url,
              headers,
              connector: 'https',
              dataset: { name: dataset.name, params },
              timeoutMs,
              maxRetries: retries,
              destination: temporary,
              signal,
            });
          });
        },
      };
    },
  };
}

function parseUrl(dataset: string, from: string): URL {
  try {
    const url = new URL(from);
    if (url.host === '') throw new Error('no host');
    return url;
  } catch {
    throw new QuarryError('HTTP_SOURCE_PARAM_INVALID', `dataset ${dataset}: from "${from}" is not a URL; write https://host/path/file.csv`);
  }
}

function chooseFormat(dataset: string, url: URL, params: Params): Format {
  const declared = params['file_format'];
  if (declared !== undefined) {
    const lower = declared.toLowerCase();
    const normalised = lower === 'jsonl' || lower === 'ndjson' ? 'json' : lower;
    if (normalised === 'csv' || normalised === 'json' || normalised === 'parquet') return normalised;
    throw invalidParam(dataset, 'file_format', declared, 'use csv, json or parquet');
  }
  const byExtension = formatsByExtension[path.posix.extname(url.pathname).toLowerCase()];
  if (byExtension) return byExtension;
  throw new QuarryError('HTTP_SOURCE_PARAM_INVALID', `dataset ${dataset}: cannot tell the format of ${url.origin}${url.pathname} from its extension; set params.file_format to csv, json or parquet`);
}

function readExpression(format: Format, file: string, params: Params, url: URL): string {
  const literal = quoteLiteral(file);
  switch (format) {
    case 'parquet':
      return `read_parquet(${literal})`;
    case 'json':
      return `read_json_auto(${literal})`;
    case 'csv': {
      const options: string[] = [];
      const header = params['csv_has_header'];
      if (header !== undefined) options.push(`header = ${header === 'false' ? 'false' : 'true'}`);
      const delimiter = params['csv_delimiter'] ?? (url.pathname.endsWith('.tsv') ? '\t' : undefined);
      if (delimiter !== undefined) options.push(`delim = ${quoteLiteral(delimiter)}`);
      return `read_csv(${[literal, ...options].join(', ')})`;
    }
  }
}
