import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './upstream.js';

/**
 * A handler that speaks the GitHub REST shape of `GET /repos/<owner>/<repo>/issues`: one issue
 * per page, `pages` pages linked with `Link: rel="next"`. The real GitHub API is unreachable
 * from the test machines, so rate-control tests paginate through this instead.
 */
export function paginatedIssues(options: { origin: () => string; pages: number; delayMs?: number }) {
  return (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', options.origin());
    const match = /^\/repos\/([^/]+)\/([^/]+)\/issues$/.exec(url.pathname);
    if (!match) {
      sendJson(response, { message: 'Not Found' }, 404);
      return;
    }
    const page = Number(url.searchParams.get('page') ?? '1');
    const issue = { id: page, number: page, title: `issue ${page}`, state: 'open', user: { login: 'octocat' }, labels: [], assignees: [], comments: 0, created_at: '2024-01-01T00:00:00Z', updated_at: '2024-01-01T00:00:00Z', closed_at: null, html_url: `https://github.com/${match[1]}/${match[2]}/issues/${page}` };
    const headers: Record<string, string> = {};
    if (page < options.pages) headers['link'] = `<${options.origin()}${url.pathname}?state=all&per_page=100&page=${page + 1}>; rel="next"`;
    const answer = () => sendJson(response, [issue], 200, headers);
    if (options.delayMs) setTimeout(answer, options.delayMs);
    else answer();
  };
}

/** A manifest dataset entry reading `owner/repo` issues from a local GitHub-shaped upstream. */
export function githubIssuesDataset(options: { name: string; origin: string; repo: string; token?: string; params?: Record<string, string>; accelerated?: boolean }): string {
  const params = { github_endpoint: options.origin, github_token: options.token ?? 'ghp_test', max_retries: '0', ...options.params };
  return `
  - from: github:github.com/${options.repo}/issues
    name: ${options.name}
    params:
${Object.entries(params).map(([key, value]) => `      ${key}: "${value}"`).join('\n')}
    acceleration:
      enabled: ${options.accelerated ?? true}`;
}
