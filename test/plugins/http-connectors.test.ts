import test from 'ava';
import { buildSchema, graphql } from 'graphql';
import { withRuntime } from '../helpers/runtime.js';
import { sendJson, startUpstream, type Upstream } from '../helpers/upstream.js';

const rows = async (response: Response) => {
  if (response.status !== 200) throw new Error(`query failed ${response.status}: ${await response.text()}`);
  return (await response.json()) as Array<Record<string, unknown>>;
};
const refresh = (baseUrl: string, name: string) => fetch(`${baseUrl}/v1/datasets/${name}/acceleration/refresh`, { method: 'POST' });
const datasetStatus = async (baseUrl: string, name: string) =>
  ((await (await fetch(`${baseUrl}/v1/datasets`)).json()) as Array<{ name: string; status: string; error: string | null }>).find((entry) => entry.name === name)!;

async function withUpstream(handler: Parameters<typeof startUpstream>[0], body: (upstream: Upstream) => Promise<void>) {
  const upstream = await startUpstream(handler);
  try {
    await body(upstream);
  } finally {
    await upstream.close();
  }
}

test('https: a CSV file with basic auth and headers is mirrored, refreshed, and a failing upstream keeps the previous data', async (t) => {
  let csv = 'id,name\n1,ada\n2,grace\n';
  let failing = false;
  await withUpstream(
    (request, response) => {
      const expected = `Basic ${Buffer.from('reader:s3cret').toString('base64')}`;
      if (request.headers['authorization'] !== expected || request.headers['x-team'] !== 'data') {
        response.writeHead(401).end('who are you');
        return;
      }
      if (failing) {
        response.writeHead(503).end('down for maintenance');
        return;
      }
      response.writeHead(200, { 'content-type': 'text/csv' }).end(csv);
    },
    async (upstream) => {
      const manifest = `
version: v2
kind: Spicepod
name: t
datasets:
  - from: ${upstream.origin}/exports/people.csv
    name: people
    params:
      http_username: reader
      http_password: s3cret
      http_headers: "X-Team: data; Accept: text/csv"
      max_retries: "1"
    acceleration:
      enabled: true
`;
      await withRuntime(t, { manifest }, async ({ baseUrl, sql }) => {
        t.deepEqual(await rows(await sql('SELECT id, name FROM people ORDER BY id')), [
          { id: 1, name: 'ada' },
          { id: 2, name: 'grace' },
        ]);
        csv = 'id,name\n1,ada\n2,grace\n3,edsger\n';
        t.is((await refresh(baseUrl, 'people')).status, 201);
        t.is((await rows(await sql('SELECT count(*) AS n FROM people')))[0]!['n'], 3);

        failing = true;
        const before = upstream.arrivals.length;
        const failed = await refresh(baseUrl, 'people');
        t.is(failed.status, 500);
        const body = (await failed.json()) as { error: { code: string; message: string } };
        t.is(body.error.code, 'DATASET_LOAD_FAILED');
        t.regex(body.error.message, /answered 503 Service Unavailable: down for maintenance \(after 2 attempts\)/);
        t.is(upstream.arrivals.length - before, 2, 'max_retries 1: the first attempt and one retry');
        // The previous rows stay: an upstream error never becomes an empty table.
        t.is((await rows(await sql('SELECT count(*) AS n FROM people')))[0]!['n'], 3);
        t.is((await datasetStatus(baseUrl, 'people')).status, 'Ready');
      });
    },
  );
});

test('https: a JSON API without an extension needs file_format and is read as JSON; 429 with Retry-After is waited for', async (t) => {
  let calls = 0;
  await withUpstream(
    (_request, response) => {
      calls++;
      if (calls === 1) {
        response.writeHead(429, { 'retry-after': '1' }).end('slow down');
        return;
      }
      sendJson(response, [
        { sku: 'a-1', price: 9.5, tags: ['x'] },
        { sku: 'b-2', price: 3.25, tags: [] },
      ]);
    },
    async (upstream) => {
      const manifest = `
version: v2
kind: Spicepod
name: t
datasets:
  - from: ${upstream.origin}/api/v1/products
    name: products
    params:
      file_format: json
    acceleration:
      enabled: true
  - from: ${upstream.origin}/api/v1/other
    name: unknown_format
    acceleration:
      enabled: true
`;
      await withRuntime(t, { manifest }, async ({ baseUrl, sql }) => {
        t.deepEqual(await rows(await sql('SELECT sku, price FROM products ORDER BY sku')), [
          { sku: 'a-1', price: 9.5 },
          { sku: 'b-2', price: 3.25 },
        ]);
        const productArrivals = upstream.arrivals.filter((arrival) => arrival.path === '/api/v1/products');
        t.is(productArrivals.length, 2);
        const waited = productArrivals[1]!.at - productArrivals[0]!.at;
        t.true(waited >= 950, `the retry waited for Retry-After: 1 (waited ${Math.round(waited)} ms)`);
        const unknown = await datasetStatus(baseUrl, 'unknown_format');
        t.is(unknown.status, 'Error');
        t.regex(unknown.error!, /cannot tell the format of .*\/api\/v1\/other from its extension; set params.file_format to csv, json or parquet/);
      });
    },
  );
});

test('https: client_timeout fails a hanging upstream visibly (UPSTREAM_TIMEOUT), a parquet file is downloaded as is', async (t) => {
  const { readFileSync } = await import('node:fs');
  const { quickstartData } = await import('../helpers/runtime.js');
  const parquet = readFileSync(`${quickstartData}/orders.parquet`);
  await withUpstream(
    (request, response) => {
      if (request.url === '/slow.csv') return; // never answers
      response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(parquet);
    },
    async (upstream) => {
      const manifest = `
version: v2
kind: Spicepod
name: t
datasets:
  - from: ${upstream.origin}/slow.csv
    name: slow
    params:
      client_timeout: 300ms
      max_retries: "1"
    acceleration:
      enabled: true
  - from: ${upstream.origin}/files/orders.parquet
    name: orders
    acceleration:
      enabled: true
`;
      await withRuntime(t, { manifest }, async ({ baseUrl, sql }) => {
        const slow = await datasetStatus(baseUrl, 'slow');
        t.is(slow.status, 'Error');
        t.regex(slow.error!, /GET http:\/\/127\.0\.0\.1:\d+\/slow\.csv did not complete within 300 ms \(client_timeout\) \(after 2 attempts\)/);
        const { DuckDBInstance } = await import('@duckdb/node-api');
        const connection = await (await DuckDBInstance.create(':memory:')).connect();
        const expected = (await connection.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM read_parquet('${quickstartData}/orders.parquet')`)).getRowObjectsJson()[0]!['n'];
        connection.closeSync();
        t.true(Number(expected) > 0);
        t.deepEqual(await rows(await sql('SELECT count(*) AS n FROM orders')), [{ n: Number(expected) }]);
      });
    },
  );
});

/** A GraphQL server built on the `graphql` reference implementation, with a Relay-style users connection. */
function graphqlHandler(options: { token: string; users: number; failWith?: () => string | undefined }) {
  const schema = buildSchema(`
    type User { id: ID!, name: String!, age: Int }
    type PageInfo { hasNextPage: Boolean!, endCursor: String }
    type UserConnection { nodes: [User!]!, pageInfo: PageInfo! }
    type Query { users(first: Int!, after: String): UserConnection! }
  `);
  const all = Array.from({ length: options.users }, (_, index) => ({ id: String(index + 1), name: `user-${index + 1}`, age: 20 + (index % 7) }));
  const rootValue = {
    users: ({ first, after }: { first: number; after?: string }) => {
      const start = after === undefined ? 0 : Number(Buffer.from(after, 'base64').toString()) + 1;
      const nodes = all.slice(start, start + first);
      const last = start + nodes.length - 1;
      return { nodes, pageInfo: { hasNextPage: last < all.length - 1, endCursor: nodes.length ? Buffer.from(String(last)).toString('base64') : null } };
    },
  };
  return async (request: { headers: Record<string, unknown>; body: string }, response: import('node:http').ServerResponse) => {
    if (request.headers['authorization'] !== `Bearer ${options.token}`) {
      response.writeHead(401).end('bad token');
      return;
    }
    const failure = options.failWith?.();
    if (failure) {
      sendJson(response, { errors: [{ message: failure }], data: null });
      return;
    }
    const { query } = JSON.parse(request.body) as { query: string };
    sendJson(response, await graphql({ schema, source: query, rootValue }));
  };
}

test('graphql: cursor pagination via pageInfo against a real graphql server, bearer auth, errors fail the refresh', async (t) => {
  let failure: string | undefined;
  await withUpstream(graphqlHandler({ token: 'tok-123', users: 25, failWith: () => failure }), async (upstream) => {
    const manifest = `
version: v2
kind: Spicepod
name: t
datasets:
  - from: graphql:${upstream.origin}/graphql
    name: users
    params:
      graphql_auth_token: tok-123
      graphql_query: |
        query { users(first: 10) { nodes { id name age } pageInfo { hasNextPage endCursor } } }
    acceleration:
      enabled: true
  - from: graphql:${upstream.origin}/graphql
    name: first_page
    params:
      graphql_auth_token: tok-123
      json_pointer: /data/users/nodes
      graphql_query: "{ users(first: 4) { nodes { id name } } }"
    acceleration:
      enabled: true
`;
    await withRuntime(t, { manifest }, async ({ baseUrl, sql }) => {
      const result = await rows(await sql('SELECT count(*) AS n, count(DISTINCT id) AS ids, max(age) AS oldest FROM users'));
      t.deepEqual(result, [{ n: 25, ids: 25, oldest: 26 }]);
      const pages = upstream.arrivals.filter((arrival) => arrival.body.includes('first: 10'));
      t.is(pages.length, 3, '25 users at 10 per page: three requests');
      t.regex(pages[1]!.body, /after: \\"OQ==\\"/, 'the second page asks for the users after the first page\'s endCursor');
      t.is((await rows(await sql('SELECT count(*) AS n FROM first_page')))[0]!['n'], 4);

      failure = 'rate limited by resolver';
      const failed = await refresh(baseUrl, 'users');
      t.is(failed.status, 500);
      t.regex(((await failed.json()) as { error: { message: string } }).error.message, /GraphQL errors: rate limited by resolver/);
      t.is((await rows(await sql('SELECT count(*) AS n FROM users')))[0]!['n'], 25, 'the previous rows stay');
    });
  });
});

/**
 * The real GitHub API is unreachable from here (no network beyond npm and Debian mirrors), so
 * this upstream speaks the GitHub REST shapes (fields, Link pagination, bearer token) locally.
 */
function githubHandler(token: string) {
  const issue = (number: number, extra: Record<string, unknown> = {}) => ({
    id: 1000 + number,
    number,
    title: `issue ${number}`,
    state: number % 2 ? 'open' : 'closed',
    user: { login: `author${number}` },
    body: `body ${number}`,
    labels: [{ name: 'bug' }, { name: `p${number % 3}` }],
    assignees: [{ login: 'octocat' }],
    comments: number * 2,
    created_at: `2024-01-${String(number).padStart(2, '0')}T10:00:00Z`,
    updated_at: '2024-02-01T00:00:00Z',
    closed_at: number % 2 ? null : '2024-03-01T00:00:00Z',
    html_url: `https://github.com/acme/widgets/issues/${number}`,
    ...extra,
  });
  return (request: { url?: string; headers: Record<string, unknown> }, response: import('node:http').ServerResponse, origin: () => string) => {
    if (request.headers['authorization'] !== `Bearer ${token}` || request.headers['accept'] !== 'application/vnd.github+json') {
      sendJson(response, { message: 'Bad credentials' }, 401);
      return;
    }
    const url = new URL(request.url ?? '/', origin());
    if (url.pathname === '/repos/acme/widgets/issues') {
      assertIssuesQuery(url);
      const page = Number(url.searchParams.get('page') ?? '1');
      const items = page === 1 ? [issue(1), issue(2), issue(3, { pull_request: { url: 'x' } })] : [issue(4), issue(5)];
      const link = page === 1 ? `<${origin()}/repos/acme/widgets/issues?state=all&per_page=100&page=2>; rel="next", <${origin()}/repos/acme/widgets/issues?page=2>; rel="last"` : undefined;
      sendJson(response, items, 200, link ? { link } : {});
      return;
    }
    if (url.pathname === '/repos/acme/widgets/releases') {
      sendJson(response, [{ id: 7, tag_name: 'v1.0.0', name: 'One', body: 'first', draft: false, prerelease: false, author: { login: 'octocat' }, created_at: '2024-05-01T00:00:00Z', published_at: '2024-05-02T00:00:00Z', html_url: 'https://github.com/acme/widgets/releases/v1.0.0' }]);
      return;
    }
    if (url.pathname === '/repos/acme/widgets/commits') {
      sendJson(response, [{ sha: 'abc123', commit: { message: 'fix: things', author: { name: 'Ada', email: 'ada@example.com', date: '2024-04-01T12:00:00Z' }, committer: { name: 'Ada', date: '2024-04-01T12:30:00Z' } }, author: { login: 'ada' }, html_url: 'https://github.com/acme/widgets/commit/abc123' }]);
      return;
    }
    sendJson(response, { message: 'Not Found' }, 404);
  };
}

function assertIssuesQuery(url: URL): void {
  if (url.searchParams.get('state') !== 'all' || url.searchParams.get('per_page') !== '100') throw new Error(`unexpected query ${url.search}`);
}

test('github: issues (pull requests left out), releases and commits through the REST shapes with Link pagination and a token', async (t) => {
  let origin = '';
  const handler = githubHandler('ghp_test');
  await withUpstream(
    (request, response) => handler(request, response, () => origin),
    async (upstream) => {
      origin = upstream.origin;
      const dataset = (table: string, token = 'ghp_test') => `
  - from: github:github.com/acme/widgets/${table}
    name: ${table}${token === 'ghp_test' ? '' : '_bad'}
    params:
      github_token: ${token}
      github_endpoint: ${upstream.origin}
      max_retries: "0"
    acceleration:
      enabled: true`;
      const manifest = `
version: v2
kind: Spicepod
name: t
datasets:${dataset('issues')}${dataset('releases')}${dataset('commits')}${dataset('issues', 'wrong')}
  - from: github:github.com/acme/widgets/wikis
    name: wikis
`;
      await withRuntime(t, { manifest }, async ({ baseUrl, sql }) => {
        const issues = await rows(await sql(`SELECT number, author, labels, comments_count, typeof(created_at) AS created_type, closed_at IS NULL AS open FROM issues ORDER BY number`));
        t.deepEqual(issues.map((row) => row['number']), [1, 2, 4, 5], 'item 3 is a pull request and is left out');
        t.deepEqual(issues[0], { number: 1, author: 'author1', labels: ['bug', 'p1'], comments_count: 2, created_type: 'TIMESTAMP WITH TIME ZONE', open: true });
        t.deepEqual(await rows(await sql('SELECT tag_name, author, prerelease FROM releases')), [{ tag_name: 'v1.0.0', author: 'octocat', prerelease: false }]);
        t.deepEqual(await rows(await sql('SELECT sha, author_login, message FROM commits')), [{ sha: 'abc123', author_login: 'ada', message: 'fix: things' }]);
        const bad = await datasetStatus(baseUrl, 'issues_bad');
        t.is(bad.status, 'Error');
        t.regex(bad.error!, /answered 401 Unauthorized: \{"message":"Bad credentials"\}/);
        const wikis = await datasetStatus(baseUrl, 'wikis');
        t.regex(wikis.error!, /dataset wikis: from "github:github\.com\/acme\/widgets\/wikis" is not supported; write github:github\.com\/<owner>\/<repo>\/<table> with <table> one of issues, pulls, commits, releases/);
      });
    },
  );
});

test('github: an exhausted rate limit (403, x-ratelimit-remaining: 0) waits for the reset; a plain 403 is final', async (t) => {
  let origin = '';
  let limited = true;
  const pages = (await import('../helpers/github-upstream.js')).paginatedIssues({ origin: () => origin, pages: 1 });
  await withUpstream(
    (request, response) => {
      if (request.url!.startsWith('/repos/acme/private/')) {
        sendJson(response, { message: 'Resource not accessible by integration' }, 403);
        return;
      }
      if (limited) {
        limited = false;
        sendJson(response, { message: 'API rate limit exceeded' }, 403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 1) });
        return;
      }
      pages(request, response);
    },
    async (upstream) => {
      origin = upstream.origin;
      const { githubIssuesDataset } = await import('../helpers/github-upstream.js');
      const manifest = `
version: v2
kind: Spicepod
name: t
datasets:${githubIssuesDataset({ name: 'limited', origin, repo: 'acme/widgets', params: { max_retries: '2' } })}${githubIssuesDataset({ name: 'private', origin, repo: 'acme/private', params: { max_retries: '2' } })}
`;
      await withRuntime(t, { manifest }, async ({ baseUrl, sql }) => {
        t.is((await rows(await sql('SELECT count(*) AS n FROM limited')))[0]!['n'], 1);
        const widgets = upstream.arrivals.filter((arrival) => arrival.path.startsWith('/repos/acme/widgets/'));
        t.is(widgets.length, 2);
        t.true(widgets[1]!.at - widgets[0]!.at >= 900, `waited for x-ratelimit-reset (${Math.round(widgets[1]!.at - widgets[0]!.at)} ms)`);
        t.is(upstream.arrivals.filter((arrival) => arrival.path.startsWith('/repos/acme/private/')).length, 1, 'a 403 without rate-limit headers is not retried');
        t.regex((await datasetStatus(baseUrl, 'private')).error!, /answered 403 Forbidden: \{"message":"Resource not accessible by integration"\}/);
      });
    },
  );
});
