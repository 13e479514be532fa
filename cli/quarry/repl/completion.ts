import { collectResult } from '../render/result-collector.js';
import type { QueryTransport } from '../transport/query-transport.js';

/** Words Tab completes besides names: what SELECT statements are made of, and the REPL's commands. */
const KEYWORDS = [
  'SELECT', 'FROM', 'WHERE', 'GROUP BY', 'ORDER BY', 'HAVING', 'LIMIT', 'OFFSET', 'JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN', 'INNER JOIN',
  'CROSS JOIN', 'ON', 'USING', 'AS', 'AND', 'OR', 'NOT', 'IN', 'IS', 'NULL', 'LIKE', 'ILIKE', 'BETWEEN', 'CASE', 'WHEN', 'THEN', 'ELSE', 'END',
  'DISTINCT', 'UNION', 'UNION ALL', 'EXCEPT', 'INTERSECT', 'WITH', 'ASC', 'DESC', 'COUNT', 'SUM', 'AVG', 'MIN', 'MAX', 'CAST', 'EXPLAIN',
  'DESCRIBE', 'SHOW TABLES', 'INSERT INTO', 'VALUES', 'TRUE', 'FALSE', 'OVER', 'PARTITION BY', 'QUALIFY', 'FILTER',
];

const TABLE_CONTEXT = new Set(['from', 'join', 'into', 'table', 'update', 'describe', '\\d', '.schema']);

/** How long the runtime's names are kept before a Tab asks again (datasets come and go). */
const NAMES_TTL_MS = 30_000;

interface Names {
  tables: string[];
  columns: string[];
  at: number;
}

/**
 * Tab completion of the word under the cursor: keywords (in the case the word is typed in),
 * the runtime's tables (as `name` and `schema.name`) and columns, read from its
 * `information_schema.columns` on the first Tab and again after 30 s. The runtime being
 * unreachable only leaves names out.
 */
export class Completer {
  #names: Names | undefined;
  #loading: Promise<Names | undefined> | undefined;

  constructor(private readonly transport: QueryTransport) {}

  /** readline's completer: the candidates, and the text they replace. */
  async complete(line: string): Promise<[string[], string]> {
    const word = /[\w."]*$/.exec(line)?.[0] ?? '';
    if (word === '') return [[], word];
    const names = await this.#currentNames();
    // After FROM, JOIN, INTO (and \d, .schema) only a table makes sense.
    const before = line.slice(0, line.length - word.length).trimEnd().split(/\s+/).at(-1)?.toLowerCase() ?? '';
    if (TABLE_CONTEXT.has(before)) return [(names?.tables ?? []).filter((name) => name.toLowerCase().startsWith(word.toLowerCase())).sort(), word];
    const lower = word.toLowerCase();
    const upper = word === word.toUpperCase() && /[A-Z]/.test(word);
    const keywords = KEYWORDS.filter((keyword) => keyword.toLowerCase().startsWith(lower)).map((keyword) => (upper ? keyword : keyword.toLowerCase()));
    const tables = (names?.tables ?? []).filter((name) => name.toLowerCase().startsWith(lower));
    // `orders.am<Tab>`: a column of that table; otherwise any column.
    const dot = word.lastIndexOf('.');
    const columns = (names?.columns ?? [])
      .filter((name) => name.toLowerCase().startsWith(dot === -1 ? lower : lower.slice(dot + 1)))
      .map((name) => (dot === -1 ? name : `${word.slice(0, dot + 1)}${name}`));
    const hits = [...new Set([...tables, ...columns, ...keywords])].sort((a, b) => a.localeCompare(b));
    return [hits, word];
  }

  async #currentNames(): Promise<Names | undefined> {
    if (this.#names && Date.now() - this.#names.at < NAMES_TTL_MS) return this.#names;
    this.#loading ??= this.#load().finally(() => {
      this.#loading = undefined;
    });
    return (await this.#loading) ?? this.#names;
  }

  async #load(): Promise<Names | undefined> {
    try {
      const result = await collectResult(
        await this.transport.queryArrow("SELECT table_schema, table_name, column_name FROM information_schema.columns WHERE table_catalog NOT IN ('system', 'temp')", { signal: AbortSignal.timeout(5000) }),
        100_000,
      );
      const tables = new Set<string>();
      const columns = new Set<string>();
      for (const [schema, table, column] of result.rows) {
        if (!table || !column) continue;
        tables.add(table);
        if (schema && schema !== 'main') tables.add(`${schema}.${table}`);
        columns.add(column);
      }
      this.#names = { tables: [...tables], columns: [...columns], at: Date.now() };
      return this.#names;
    } catch {
      return undefined;
    }
  }
}
