import { createHash } from 'node:crypto';
import type { DatasetConnector, EngineSource } from '../../core/engine/sources/connector.js';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { quoteLiteral } from '../../core/engine/sql-text.js';
import type { OutboundClient } from '../../core/outbound/client.js';
import { clientTimeoutMs, maxRetries } from './connection-params.js';
import { githubTables, type GithubTable } from './github-shapes.js';
import { Mirror, NdjsonWriter } from './mirror.js';

const MAX_PAGES = 100_000;

/**
 * `github:github.com/<owner>/<repo>/{issues|pulls|commits|releases}`: lists the repository's
 * items through the GitHub REST API (following `Link: rel="next"`), one row per item with
 * fixed columns, into a newline-delimited JSON mirror. `github_token` authenticates; its hash
 * is the request's authentication context (code-hosting concurrency is counted per token).
 */
export function createGithubConnector(outbound: OutboundClient): DatasetConnector {
  return {
    schemes: ['github'],
    resolve(dataset): EngineSource {
      const params = dataset.params;
      const match = /^(?:\/\/)?github\.com\/([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)\/([a-z_]+)\/?$/.exec(dataset.location);
      const table = match ? githubTables[match[3]!] : undefined;
      if (!match || !table) {
        throw new QuarryError(
          'HTTP_SOURCE_PARAM_INVALID',
          `dataset ${dataset.name}: from "${dataset.from}" is not supported; write github:github.com/<owner>/<repo>/<table> with <table> one of ${Object.keys(githubTables).join(', ')}`,
        );
      }
      const endpoint = apiEndpoint(dataset.name, params['github_endpoint']);
      const token = params['github_token'];
      const headers: Record<string, string> = { Accept: 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28', 'User-Agent': 'quarry' };
      if (token !== undefined && token !== '') headers['Authorization'] = `Bearer ${token}`;
      const authContext = `github:${token ? createHash('sha256').update(token).digest('hex').slice(0, 16) : 'anonymous'}`;
      const timeoutMs = clientTimeoutMs(dataset.name, params);
      const retries = maxRetries(dataset.name, params);
      const first = new URL(`${endpoint.pathname.replace(/\/$/, '')}/repos/${match[1]}/${match[2]}/${table.path}`, endpoint);
      for (const [key, value] of Object.entries(table.query)) first.searchParams.set(key, value);
      const mirror = new Mirror(dataset.baseDirectory, dataset.name, 'json');
      mirror.ensurePlaceholder();
      return {
        kind: 'engine',
        tableExpression: readExpression(mirror.file, table),
        allowedPaths: [mirror.file],
        allowedDirectories: [],
        async synchronise(signal) {
          await mirror.replace(async (temporary) => {
            const writer = new NdjsonWriter(temporary);
            let next: URL | undefined = first;
            for (let page = 0; next && page < MAX_PAGES; page++) {
              const response = await outbound.request({ url: next, headers, connector: 'github', authContext, dataset: { name: dataset.name, params }, timeoutMs, maxRetries: retries, signal, throttledFor: githubThrottle });
              let items: unknown;
              try {
                items = JSON.parse(response.body!.toString('utf8'));
              } catch {
                items = undefined;
              }
              if (!Array.isArray(items)) {
                throw new QuarryError('UPSTREAM_RESPONSE_INVALID', `dataset ${dataset.name}: ${next.origin}${next.pathname} did not answer a JSON array of ${match[3]}`);
              }
              for (const item of items) {
                const row = typeof item === 'object' && item !== null ? table.toRow(item as Record<string, unknown>) : undefined;
                if (row) await writer.write(row);
              }
              next = nextPage(response.headers.get('link'), endpoint);
            }
            await writer.close();
          });
        },
      };
    },
  };
}

/**
 * GitHub answers rate limiting with 403 (or 429): a secondary limit carries `Retry-After`
 * (the client reads it), an exhausted primary limit `x-ratelimit-remaining: 0` and the reset
 * time in epoch seconds. Other 403s (no access) are final.
 */
export function githubThrottle(status: number, headers: Headers): number | undefined {
  if (status !== 403 && status !== 429) return undefined;
  if (headers.get('retry-after') !== null) return 0;
  if (headers.get('x-ratelimit-remaining') !== '0') return undefined;
  const reset = Number(headers.get('x-ratelimit-reset'));
  return Number.isFinite(reset) ? Math.max(0, reset * 1000 - Date.now()) : undefined;
}

/** `github_endpoint` (GitHub Enterprise, or a local server in tests); default https://api.github.com. */
function apiEndpoint(dataset: string, text: string | undefined): URL {
  try {
    const url = new URL(text ?? 'https://api.github.com');
    if (url.protocol === 'https:' || url.protocol === 'http:') return url;
  } catch {
    // Reported below.
  }
  throw new QuarryError('HTTP_SOURCE_PARAM_INVALID', `dataset ${dataset}: params.github_endpoint "${text}" is not an http(s) URL; e.g. https://github.example.com/api/v3`);
}

/** The `rel="next"` link, only when it stays on the API's origin (the token is never sent elsewhere). */
function nextPage(link: string | null, endpoint: URL): URL | undefined {
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (!match) continue;
    const url = new URL(match[1]!, endpoint);
    if (url.origin !== endpoint.origin) {
      throw new QuarryError('UPSTREAM_RESPONSE_INVALID', `the next page link points at ${url.origin}, not at ${endpoint.origin}; it was not followed`);
    }
    return url;
  }
  return undefined;
}

function readExpression(file: string, table: GithubTable): string {
  const columns = Object.entries(table.columns).map(([name, type]) => `${name}: '${type}'`).join(', ');
  return `read_json(${quoteLiteral(file)}, format = 'newline_delimited', columns = {${columns}})`;
}
