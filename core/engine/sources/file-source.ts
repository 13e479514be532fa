import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { QuarryError } from '../../errors/quarry-error.js';
import { quoteLiteral } from '../sql-text.js';
import type { DatasetConnector, EngineSource } from './connector.js';

export type FileFormat = 'parquet' | 'csv' | 'json';

const formatsByExtension: Record<string, FileFormat> = {
  '.parquet': 'parquet',
  '.pq': 'parquet',
  '.csv': 'csv',
  '.tsv': 'csv',
  '.json': 'json',
  '.jsonl': 'json',
  '.ndjson': 'json',
};

/** The core's connector for `file:` datasets: DuckDB reads the files itself. */
export const fileConnector: DatasetConnector = {
  schemes: ['file'],
  resolve: (dataset): EngineSource => ({
    kind: 'engine',
    ...resolveFileSource({ from: dataset.from, params: dataset.params, baseDirectory: dataset.baseDirectory, datasetName: dataset.name }),
  }),
};

/** A `file:` dataset source resolved against the manifest directory. */
export interface FileSource {
  /** The absolute file, or a glob inside a directory. */
  readonly location: string;
  readonly format: FileFormat;
  /** Paths the engine must still be allowed to read after lockdown. */
  readonly allowedPaths: readonly string[];
  readonly allowedDirectories: readonly string[];
  /** The SQL table expression that reads it, e.g. `read_parquet('/abs/orders.parquet')`. */
  readonly tableExpression: string;
}

/** `file:path`, `file://path` (relative) and `file:///abs/path` all name a local file or directory. */
export function parseFileLocation(from: string): string | undefined {
  if (from.startsWith('file://')) return from.slice('file://'.length);
  if (from.startsWith('file:')) return from.slice('file:'.length);
  return undefined;
}

export function resolveFileSource(options: {
  from: string;
  params: Readonly<Record<string, string>>;
  baseDirectory: string;
  datasetName: string;
}): FileSource {
  const relative = parseFileLocation(options.from);
  if (relative === undefined || relative === '') {
    throw new QuarryError('DATASET_LOAD_FAILED', `dataset ${options.datasetName}: from "${options.from}" is not a file source; use file:path/to/data.parquet`);
  }
  const absolute = path.resolve(options.baseDirectory, relative);
  if (!existsSync(absolute)) {
    throw new QuarryError('DATASET_LOAD_FAILED', `dataset ${options.datasetName}: file ${absolute} does not exist`);
  }
  const isDirectory = statSync(absolute).isDirectory();
  const format = chooseFormat(options, absolute, isDirectory);
  const location = isDirectory ? path.join(absolute, `**/*.${format === 'json' ? 'json*' : format}`) : absolute;
  return {
    location,
    format,
    allowedPaths: isDirectory ? [] : [absolute],
    allowedDirectories: isDirectory ? [absolute] : [],
    tableExpression: readExpression(format, location, options.params),
  };
}

function chooseFormat(options: { params: Readonly<Record<string, string>>; datasetName: string }, absolute: string, isDirectory: boolean): FileFormat {
  const declared = options.params['file_format'];
  if (declared !== undefined) {
    const normalised = declared.toLowerCase() === 'jsonl' || declared.toLowerCase() === 'ndjson' ? 'json' : declared.toLowerCase();
    if (normalised === 'parquet' || normalised === 'csv' || normalised === 'json') return normalised;
    throw new QuarryError('DATASET_LOAD_FAILED', `dataset ${options.datasetName}: params.file_format "${declared}" is not supported; use parquet, csv or json`);
  }
  const byExtension = formatsByExtension[path.extname(absolute).toLowerCase()];
  if (byExtension) return byExtension;
  const hint = isDirectory ? 'a directory needs params.file_format' : `cannot tell the format of ${path.basename(absolute)} from its extension`;
  throw new QuarryError('DATASET_LOAD_FAILED', `dataset ${options.datasetName}: ${hint}; set params.file_format to parquet, csv or json`);
}

function readExpression(format: FileFormat, location: string, params: Readonly<Record<string, string>>): string {
  const file = quoteLiteral(location);
  switch (format) {
    case 'parquet':
      return `read_parquet(${file})`;
    case 'json':
      return `read_json_auto(${file})`;
    case 'csv': {
      const options: string[] = [];
      const header = params['csv_has_header'];
      if (header !== undefined) options.push(`header = ${header === 'false' ? 'false' : 'true'}`);
      const delimiter = params['csv_delimiter'] ?? (location.endsWith('.tsv') ? '\t' : undefined);
      if (delimiter !== undefined) options.push(`delim = ${quoteLiteral(delimiter)}`);
      const quote = params['csv_quote'];
      if (quote !== undefined) options.push(`quote = ${quoteLiteral(quote)}`);
      return `read_csv(${[file, ...options].join(', ')})`;
    }
  }
}
