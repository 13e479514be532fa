import { quoteIdentifier, quoteLiteral, quoteQualifiedName } from '../../core/engine/sql-text.js';
import type { SearchColumn, SearchDataset } from './search-datasets.js';
import { STOP_WORDS } from './stop-words.js';

/** The schema holding every search index; user SQL may not name its tables (hidden in the sandbox). */
export const SEARCH_SCHEMA = 'quarry_search';

/** Where a query's text goes in a search template: replaced by a SQL string literal. */
export const QUERY_PLACEHOLDER = '{{query}}';

const STOP_LIST = `[${STOP_WORDS.map(quoteLiteral).join(', ')}]`;

/**
 * Words of a text, as the full-text index and its queries both cut them: runs of letters and
 * digits, lower-cased, accents dropped, stop words left out. No stemming: "cats" is not "cat".
 */
export function tokensSql(text: string): string {
  return `list_filter(regexp_extract_all(lower(strip_accents(${text})), '[\\p{L}\\p{N}]+'), word -> NOT list_contains(${STOP_LIST}, word))`;
}

/** BM25's usual constants: term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;

export function indexTable(dataset: SearchDataset, suffix: string): { name: string; sql: string } {
  const name = `${dataset.name.toLowerCase().replaceAll('.', '__')}__${suffix}`;
  return { name, sql: `${SEARCH_SCHEMA}.${quoteIdentifier(name)}` };
}

/** The tables of one generation of a dataset's full-text index. */
export interface FullTextTables {
  readonly docs: { name: string; sql: string };
  readonly terms: { name: string; sql: string };
}

export function fullTextTables(dataset: SearchDataset, generation: number): FullTextTables {
  return { docs: indexTable(dataset, `fts_docs_${generation}`), terms: indexTable(dataset, `fts_terms_${generation}`) };
}

/** Where a build writes each text's words before they become the two tables (dropped after). */
export function fullTextStaging(dataset: SearchDataset): { name: string; sql: string } {
  return indexTable(dataset, 'fts_staging');
}

/**
 * Builds a full-text index in the engine, from the dataset's rows to two tables: `docs`, one
 * row per distinct text of a column (its hash, its length in words, how many rows hold it),
 * and `terms`, one row per word of a text with its count, sorted by word so a query's words
 * are found through the engine's zone maps. Nothing leaves the engine.
 */
export function fullTextBuildStatements(dataset: SearchDataset, tables: FullTextTables): string[] {
  const source = quoteQualifiedName(dataset.name);
  const staging = fullTextStaging(dataset);
  const texts = dataset.columns
    .filter((column) => column.fullText)
    .map((column) => {
      const name = quoteIdentifier(column.name);
      return `SELECT ${column.ordinal} AS col, hash(${name}) AS text_hash, ${tokensSql(name)} AS tokens FROM ${source} WHERE ${name} IS NOT NULL`;
    });
  return [
    `CREATE OR REPLACE TABLE ${staging.sql} AS SELECT row_number() OVER () AS doc, col, text_hash, copies, tokens FROM (SELECT col, text_hash, count(*) AS copies, any_value(tokens) AS tokens FROM (${texts.join(' UNION ALL ')}) GROUP BY col, text_hash)`,
    `CREATE OR REPLACE TABLE ${tables.docs.sql} AS SELECT doc, col, text_hash, copies, len(tokens) AS len FROM ${staging.sql}`,
    `CREATE OR REPLACE TABLE ${tables.terms.sql} AS SELECT term, doc, count(*)::INTEGER AS tf FROM (SELECT doc, unnest(tokens) AS term FROM ${staging.sql}) GROUP BY term, doc ORDER BY term`,
    `DROP TABLE ${staging.sql}`,
  ];
}

/** A search column's rows joined to its hits by the hash of their current text: a row whose text changed since the index was built is not matched. */
function matchedRows(dataset: SearchDataset, column: SearchColumn, hits: string, text: string): string {
  const name = quoteIdentifier(column.name);
  return `SELECT r.*, r.rowid AS __quarry_row, h.score AS __quarry_score, ${quoteLiteral(column.name)} AS __quarry_column, ${text} AS __quarry_text FROM ${quoteQualifiedName(dataset.name)} r JOIN ${hits} h ON hash(r.${name}) = h.text_hash`;
}

/** Each row once, with its best-scoring column. One column needs no window: each row is in it once (the window was a third of a query's time). */
function bestPerRow(branches: readonly string[]): string {
  if (branches.length === 1) return branches[0]!;
  return `SELECT * FROM (${branches.join(' UNION ALL ')}) QUALIFY row_number() OVER (PARTITION BY __quarry_row ORDER BY __quarry_score DESC, __quarry_column) = 1`;
}

/**
 * Full-text matches of a query (its text at QUERY_PLACEHOLDER): the dataset's columns and
 * `__quarry_row`, `__quarry_score` (BM25, summed over the query's words), `__quarry_column`,
 * `__quarry_text`; rows without any of the words are not matches.
 */
export function fullTextHitsSql(dataset: SearchDataset, tables: FullTextTables): string {
  const docs = tables.docs.sql;
  const terms = tables.terms.sql;
  const scored = `WITH query_terms AS (SELECT DISTINCT unnest(${tokensSql(QUERY_PLACEHOLDER)}) AS term),
stats AS (SELECT sum(copies)::DOUBLE AS documents, sum(len * copies)::DOUBLE / greatest(sum(copies), 1) AS average_length FROM ${docs}),
matched AS (SELECT t.term, t.doc, t.tf FROM ${terms} t JOIN query_terms q ON t.term = q.term),
frequency AS (SELECT m.term, sum(d.copies)::DOUBLE AS df FROM matched m JOIN ${docs} d ON d.doc = m.doc GROUP BY m.term),
hits AS (SELECT d.col, d.text_hash, sum(ln(1 + (s.documents - f.df + 0.5) / (f.df + 0.5)) * m.tf * ${K1 + 1} / (m.tf + ${K1} * (${1 - B} + ${B} * d.len / greatest(s.average_length, 1)))) AS score
  FROM matched m JOIN frequency f ON f.term = m.term JOIN ${docs} d ON d.doc = m.doc CROSS JOIN stats s GROUP BY d.col, d.text_hash)`;
  const branches = dataset.columns
    .filter((column) => column.fullText)
    .map((column) => matchedRows(dataset, column, `(SELECT text_hash, score FROM hits WHERE col = ${column.ordinal})`, `r.${quoteIdentifier(column.name)}`));
  return `${scored}\n${bestPerRow(branches)}`;
}

/** A column's vector table: one row per chunk of each distinct text, kept across refreshes (only new texts are embedded). */
export function vectorTable(dataset: SearchDataset, column: SearchColumn): { name: string; sql: string } {
  return indexTable(dataset, `vectors_${column.ordinal}`);
}

export function vectorTableStatement(table: { sql: string }, dimensions: number): string {
  return `CREATE OR REPLACE TABLE ${table.sql} (text_hash UBIGINT NOT NULL, chunk INTEGER NOT NULL, chunk_text VARCHAR NOT NULL, vector FLOAT[${dimensions}] NOT NULL)`;
}

/** Texts of the column that have no vectors yet, each once. */
export function newTextsSql(dataset: SearchDataset, column: SearchColumn, table: { sql: string }): string {
  const name = quoteIdentifier(column.name);
  return `SELECT text_hash, any_value(text) AS text FROM (SELECT hash(${name}) AS text_hash, ${name} AS text FROM ${quoteQualifiedName(dataset.name)} WHERE ${name} IS NOT NULL) s WHERE NOT EXISTS (SELECT 1 FROM ${table.sql} v WHERE v.text_hash = s.text_hash) GROUP BY text_hash`;
}

/** Vectors of texts no row holds any more. */
export function pruneVectorsSql(dataset: SearchDataset, column: SearchColumn, table: { sql: string }): string {
  const name = quoteIdentifier(column.name);
  return `DELETE FROM ${table.sql} WHERE text_hash NOT IN (SELECT hash(${name}) FROM ${quoteQualifiedName(dataset.name)} WHERE ${name} IS NOT NULL)`;
}

/** An embedded column ready to search: its vector table, model and vector length. */
export interface VectorColumn {
  readonly column: SearchColumn;
  readonly table: { sql: string };
  readonly model: string;
  readonly dimensions: number;
}

/**
 * Vector matches of a query: each embedded column's chunks scored by their inner product
 * with the query's vector (both are unit length, so it is the cosine similarity), a text's
 * best chunk kept; the same columns as fullTextHitsSql, `__quarry_text` the best chunk.
 * The query is embedded once per model, by `quarry_embed` (the embeddings cache first).
 */
export function vectorHitsSql(dataset: SearchDataset, columns: readonly VectorColumn[]): string {
  const queries = columns.map((column, index) => `query_vector_${index} AS (SELECT CAST(quarry_embed(${quoteLiteral(column.model)}, ${QUERY_PLACEHOLDER}) AS FLOAT[${column.dimensions}]) AS q)`);
  const hits = columns.map((column, index) => `hits_${index} AS (SELECT text_hash, max(score) AS score, arg_max(chunk_text, score) AS chunk_text FROM (SELECT v.text_hash, v.chunk_text, array_inner_product(v.vector, qv.q) AS score FROM ${column.table.sql} v CROSS JOIN query_vector_${index} qv) GROUP BY text_hash)`);
  const branches = columns.map((column, index) => matchedRows(dataset, column.column, `hits_${index}`, 'h.chunk_text'));
  return `WITH ${[...queries, ...hits].join(',\n')}\n${bestPerRow(branches)}`;
}

/** Search methods of the searchable datasets, as the macros dispatch on them. */
export interface MacroSources {
  /** dataset name (lower-case) -> its full-text template, or why it has none yet. */
  readonly text: ReadonlyMap<string, { sql: string } | { notReady: string }>;
  readonly vector: ReadonlyMap<string, { sql: string } | { notReady: string }>;
}

/**
 * `quarry_search_text(dataset, query)` / `quarry_search_vector(dataset, query)`: every match
 * with the `__quarry_*` columns (for /v1/search); `text_search(dataset, query, limit)` /
 * `vector_search(...)`: the best `limit` rows with the dataset's columns and `score`. The
 * dataset name picks a template written by the runtime; the caller's text enters it only as a
 * quoted string literal, and its own SQL (a WHERE around the call) stays outside.
 */
export function macroStatements(sources: MacroSources): string[] {
  const statements: string[] = [];
  for (const [method, templates, publicName] of [['text', sources.text, 'text_search'], ['vector', sources.vector, 'vector_search']] as const) {
    const cases = [...templates.entries()].map(([dataset, template]) => {
      const sql = 'sql' in template ? `replace(${quoteLiteral(template.sql)}, ${quoteLiteral(QUERY_PLACEHOLDER)}, '''' || replace(coalesce(query, ''), '''', '''''') || '''')` : `error(${quoteLiteral(`${publicName}: dataset ${dataset}: ${template.notReady}`)})`;
      return `WHEN ${quoteLiteral(dataset)} THEN ${sql}`;
    });
    const searchable = [...templates.keys()];
    const otherwise = `error(${quoteLiteral(`${publicName}: `)} || coalesce(dataset, 'NULL') || ${quoteLiteral(searchable.length > 0 ? ` has no ${method === 'text' ? 'full-text' : 'vector'} search; datasets with one: ${searchable.join(', ')}` : ` has no ${method === 'text' ? 'full-text' : 'vector'} search: no dataset has ${method === 'text' ? 'full_text_search' : 'embeddings with a model Quarry runs'} on a column`)})`;
    const chosen = cases.length > 0 ? `CASE lower(dataset) ${cases.join(' ')} ELSE ${otherwise} END` : otherwise;
    statements.push(`CREATE OR REPLACE MACRO quarry_search_${method}(dataset, query) AS TABLE FROM query(${chosen})`);
    statements.push(`CREATE OR REPLACE MACRO ${publicName}(dataset, query, lim := 10) AS TABLE SELECT * EXCLUDE (__quarry_row, __quarry_column, __quarry_text) RENAME (__quarry_score AS score) FROM quarry_search_${method}(dataset, query) ORDER BY score DESC, __quarry_row LIMIT lim`);
  }
  return statements;
}
