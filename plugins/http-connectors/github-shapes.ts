/**
 * The rows of each GitHub table: which REST endpoint lists them, how one REST item becomes a
 * row, and the column types DuckDB reads the mirror with (explicit, so a refresh never
 * changes a column's type because of what one page happened to hold).
 */
export interface GithubTable {
  /** Path under /repos/{owner}/{repo}/ and its query string. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  /** Column name → DuckDB type, in order. */
  readonly columns: Readonly<Record<string, string>>;
  /** The row for one item, or undefined to skip it (the issues list also holds pull requests). */
  toRow(item: Item): Record<string, unknown> | undefined;
}

type Item = Record<string, unknown>;

const login = (value: unknown): string | null => (typeof value === 'object' && value !== null ? ((value as { login?: string }).login ?? null) : null);
const names = (value: unknown, key: 'name' | 'login'): string[] =>
  Array.isArray(value) ? value.flatMap((entry) => (typeof entry === 'object' && entry !== null && typeof (entry as Item)[key] === 'string' ? [(entry as Item)[key] as string] : [])) : [];
const field = (item: Item, ...path: string[]): unknown => path.reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Item)[key] : undefined), item) ?? null;

export const githubTables: Readonly<Record<string, GithubTable>> = {
  issues: {
    path: 'issues',
    query: { state: 'all', per_page: '100' },
    columns: {
      number: 'BIGINT',
      id: 'BIGINT',
      title: 'VARCHAR',
      state: 'VARCHAR',
      author: 'VARCHAR',
      body: 'VARCHAR',
      labels: 'VARCHAR[]',
      assignees: 'VARCHAR[]',
      comments_count: 'BIGINT',
      created_at: 'TIMESTAMPTZ',
      updated_at: 'TIMESTAMPTZ',
      closed_at: 'TIMESTAMPTZ',
      url: 'VARCHAR',
    },
    toRow: (item) =>
      item['pull_request'] !== undefined
        ? undefined
        : {
            number: field(item, 'number'),
            id: field(item, 'id'),
            title: field(item, 'title'),
            state: field(item, 'state'),
            author: login(item['user']),
            body: field(item, 'body'),
            labels: names(item['labels'], 'name'),
            assignees: names(item['assignees'], 'login'),
            comments_count: field(item, 'comments'),
            created_at: field(item, 'created_at'),
            updated_at: field(item, 'updated_at'),
            closed_at: field(item, 'closed_at'),
            url: field(item, 'html_url'),
          },
  },
  pulls: {
    path: 'pulls',
    query: { state: 'all', per_page: '100' },
    columns: {
      number: 'BIGINT',
      id: 'BIGINT',
      title: 'VARCHAR',
      state: 'VARCHAR',
      author: 'VARCHAR',
      body: 'VARCHAR',
      labels: 'VARCHAR[]',
      draft: 'BOOLEAN',
      head_ref: 'VARCHAR',
      base_ref: 'VARCHAR',
      created_at: 'TIMESTAMPTZ',
      updated_at: 'TIMESTAMPTZ',
      closed_at: 'TIMESTAMPTZ',
      merged_at: 'TIMESTAMPTZ',
      url: 'VARCHAR',
    },
    toRow: (item) => ({
      number: field(item, 'number'),
      id: field(item, 'id'),
      title: field(item, 'title'),
      state: field(item, 'state'),
      author: login(item['user']),
      body: field(item, 'body'),
      labels: names(item['labels'], 'name'),
      draft: field(item, 'draft'),
      head_ref: field(item, 'head', 'ref'),
      base_ref: field(item, 'base', 'ref'),
      created_at: field(item, 'created_at'),
      updated_at: field(item, 'updated_at'),
      closed_at: field(item, 'closed_at'),
      merged_at: field(item, 'merged_at'),
      url: field(item, 'html_url'),
    }),
  },
  commits: {
    path: 'commits',
    query: { per_page: '100' },
    columns: {
      sha: 'VARCHAR',
      message: 'VARCHAR',
      author_name: 'VARCHAR',
      author_email: 'VARCHAR',
      author_login: 'VARCHAR',
      authored_at: 'TIMESTAMPTZ',
      committer_name: 'VARCHAR',
      committed_at: 'TIMESTAMPTZ',
      url: 'VARCHAR',
    },
    toRow: (item) => ({
      sha: field(item, 'sha'),
      message: field(item, 'commit', 'message'),
      author_name: field(item, 'commit', 'author', 'name'),
      author_email: field(item, 'commit', 'author', 'email'),
      author_login: login(item['author']),
      authored_at: field(item, 'commit', 'author', 'date'),
      committer_name: field(item, 'commit', 'committer', 'name'),
      committed_at: field(item, 'commit', 'committer', 'date'),
      url: field(item, 'html_url'),
    }),
  },
  releases: {
    path: 'releases',
    query: { per_page: '100' },
    columns: {
      id: 'BIGINT',
      tag_name: 'VARCHAR',
      name: 'VARCHAR',
      body: 'VARCHAR',
      draft: 'BOOLEAN',
      prerelease: 'BOOLEAN',
      author: 'VARCHAR',
      created_at: 'TIMESTAMPTZ',
      published_at: 'TIMESTAMPTZ',
      url: 'VARCHAR',
    },
    toRow: (item) => ({
      id: field(item, 'id'),
      tag_name: field(item, 'tag_name'),
      name: field(item, 'name'),
      body: field(item, 'body'),
      draft: field(item, 'draft'),
      prerelease: field(item, 'prerelease'),
      author: login(item['author']),
      created_at: field(item, 'created_at'),
      published_at: field(item, 'published_at'),
      url: field(item, 'html_url'),
    }),
  },
};
