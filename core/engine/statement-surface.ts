import type { DuckDBConnection } from '@duckdb/node-api';
import { LRUCache } from 'lru-cache';
import { EXPLAIN_PREFIX } from './classify.js';
import { KeptTextFunction } from './kept-text-function.js';
import { numericShape } from './numeric-shape.js';

/** A file a statement reads by naming it: a reader function's path argument, or a path in FROM. */
export interface FileRead {
  /** `read_csv()`, `glob()`, ... or `FROM '...'` for a replacement scan. */
  readonly via: string;
  /** The path or glob as written; undefined when it is not a literal string (computed at run time). */
  readonly path: string | undefined;
}

/** What a statement reaches besides the datasets: the functions it calls and the files it names. */
export interface StatementSurface {
  readonly functions: Set<string>;
  readonly fileReads: FileRead[];
  /** Functions called in FROM (table functions); from the text: none. */
  readonly tableFunctions: Set<string>;
  /** Tables named in FROM, lower case, without schema; from the text: every word. */
  readonly tables: Set<string>;
  /** False when the engine could not serialize the statement: `functions` was then read from the text. */
  readonly parsed: boolean;
}

/** Functions that read the files their first argument names. */
export const FILE_READERS = new Set([
  'read_blob', 'read_text', 'glob',
  'read_csv', 'read_csv_auto', 'sniff_csv',
  'read_json', 'read_json_auto', 'read_json_objects', 'read_json_objects_auto',
  'read_ndjson', 'read_ndjson_auto', 'read_ndjson_objects',
  'read_parquet', 'parquet_scan', 'parquet_metadata', 'parquet_schema', 'parquet_file_metadata', 'parquet_kv_metadata', 'parquet_bloom_probe',
  'parquet_full_metadata', 'read_duckdb',
]);

/** A FROM name the engine would scan as a file (a replacement scan): it has a path separator or a file extension. */
const PATH_LIKE_TABLE = /[/\\]|\.(?:csv|tsv|txt|parquet|json|jsonl|ndjson|gz|zst|duckdb|db|blob)$/i;

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The literal strings of a reader's path argument: a string constant or a list of them; undefined for anything computed. */
function literalPaths(argument: unknown): Array<string | undefined> {
  if (!isNode(argument)) return [undefined];
  if (argument['class'] === 'CONSTANT' && isNode(argument['value'])) {
    const value = argument['value'];
    return [typeof value['value'] === 'string' ? value['value'] : undefined];
  }
  if (argument['class'] === 'FUNCTION' && argument['function_name'] === 'list_value' && Array.isArray(argument['children'])) {
    return argument['children'].flatMap((child) => literalPaths(child));
  }
  return [undefined];
}

type Collected = Omit<StatementSurface, 'parsed'>;

function walk(node: unknown, surface: Collected): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, surface);
    return;
  }
  if (!isNode(node)) return;
  const name = typeof node['function_name'] === 'string' ? node['function_name'].toLowerCase() : undefined;
  if (name !== undefined) {
    surface.functions.add(name);
    if (FILE_READERS.has(name)) {
      const children = Array.isArray(node['children']) ? node['children'] : [];
      for (const path of literalPaths(children[0])) surface.fileReads.push({ via: `${name}()`, path });
    }
  }
  if (node['type'] === 'TABLE_FUNCTION' && isNode(node['function']) && typeof node['function']['function_name'] === 'string') {
    surface.tableFunctions.add(node['function']['function_name'].toLowerCase());
  }
  if (node['type'] === 'BASE_TABLE' && typeof node['table_name'] === 'string') {
    surface.tables.add(node['table_name'].toLowerCase());
    if (PATH_LIKE_TABLE.test(node['table_name'])) surface.fileReads.push({ via: 'FROM', path: node['table_name'] });
  }
  for (const value of Object.values(node)) walk(value, surface);
}

/**
 * What the engine's parse found, by the text's numeric shape (numeric-shape.ts): a statement
 * sent again with other numbers in it is not parsed again (~0.2 ms of the engine and ~0.1 ms of
 * the JavaScript thread a new text, here). Only parses that succeeded are kept; by size, as
 * texts may be long.
 */
const parsedSurfaces = new LRUCache<string, Collected>({ maxSize: 16 * 1024 * 1024, sizeCalculation: (_surface, shape) => Math.max(1, shape.length) });

/** The engine's parser, kept per connection (kept-text-function.ts). */
const serializer = new KeptTextFunction('SELECT json_serialize_sql($1::VARCHAR)');

/** The engine's JSON parse tree of `text`; '' when the engine could not serialize it. */
async function serializedTree(connection: DuckDBConnection, text: string): Promise<string> {
  // On failure the statement is read from its text (conservatively), as when it does not parse.
  return serializer.apply(connection, text).catch(() => '');
}

/**
 * The surface of a statement, from the engine's own parse (`json_serialize_sql`, of the
 * statement an EXPLAIN wraps). A statement the engine cannot serialize (PIVOT, a non-SELECT)
 * is read from its text, conservatively: every `name(` counts as a call (a name inside a
 * string literal too), a reader named anywhere counts as a read of a computed path, and
 * every word as a table it may read.
 */
export async function statementSurface(connection: DuckDBConnection, sql: string): Promise<StatementSurface> {
  const text = sql.replace(EXPLAIN_PREFIX, '');
  const shape = numericShape(text);
  const known = shape === undefined ? undefined : parsedSurfaces.get(shape);
  if (known) return { ...known, parsed: true };
  const surface: Collected = { functions: new Set(), fileReads: [], tableFunctions: new Set(), tables: new Set() };
  const serialized = await serializedTree(connection, text);
  const tree = serialized ? (JSON.parse(serialized) as { error?: boolean }) : { error: true };
  if (!tree.error) {
    walk(tree, surface);
    if (shape !== undefined) parsedSurfaces.set(shape, surface);
    return { ...surface, parsed: true };
  }
  for (const match of text.matchAll(/(?:"((?:[^"]|"")+)"|([A-Za-z_][\w$]*))\s*\(/g)) {
    const name = (match[1] ?? match[2]!).replaceAll('""', '"').toLowerCase();
    surface.functions.add(name);
    if (FILE_READERS.has(name)) surface.fileReads.push({ via: `${name}()`, path: undefined });
  }
  for (const match of text.matchAll(/"((?:[^"]|"")+)"|([A-Za-z_][\w$]*)/g)) surface.tables.add((match[1] ?? match[2]!).replaceAll('""', '"').toLowerCase());
  return { ...surface, parsed: false };
}
