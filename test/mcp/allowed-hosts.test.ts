/**
 * runtime.mcp.allowed_hosts: the matcher for every form of entry, then real requests with
 * forged Host and Origin headers (403 JSON error before MCP answers).
 */
import test from 'ava';
import { createHostAllowList } from '../../plugins/mcp/allowed-hosts.js';
import { withRuntime } from '../helpers/runtime.js';
import { JSON_POST_HEADERS, rawRequest, TOOLS_LIST_BODY } from './mcp-helpers.js';

type Case = [host: string, origin: string | undefined, allowed: boolean];

const table: Array<{ name: string; entries: string[] | undefined; cases: Case[] }> = [
  {
    name: 'unset: loopback names, any port',
    entries: undefined,
    cases: [
      ['localhost', undefined, true], ['localhost:8090', undefined, true], ['LOCALHOST:1', undefined, true],
      ['127.0.0.1:8090', undefined, true], ['[::1]:8090', undefined, true], ['[::1]', undefined, true],
      ['evil.example', undefined, false], ['evil.example:8090', undefined, false], ['127.0.0.2', undefined, false],
      ['localhost.evil.example', undefined, false], ['', undefined, false],
      ['localhost:8090', 'http://localhost:3000', true], ['localhost:8090', 'http://evil.example', false], ['localhost:8090', 'null', false],
    ],
  },
  {
    name: 'bare host: any port; replaces the defaults',
    entries: ['quarry.internal'],
    cases: [['quarry.internal', undefined, true], ['quarry.internal:9000', undefined, true], ['localhost:8090', undefined, false]],
  },
  {
    name: 'host:port: that port only (a Host without port is the scheme default)',
    entries: ['quarry.internal:8090', 'web.internal:80'],
    cases: [['quarry.internal:8090', undefined, true], ['quarry.internal:8091', undefined, false], ['quarry.internal', undefined, false], ['web.internal', undefined, true]],
  },
  {
    name: 'origin URL: host and port, and the scheme of an Origin',
    entries: ['https://app.example.com', 'http://localhost:3000'],
    cases: [
      ['app.example.com', undefined, false], ['app.example.com:443', undefined, true], ['localhost:3000', undefined, true], ['localhost:8090', undefined, false],
      ['app.example.com:443', 'https://app.example.com', true], ['app.example.com:443', 'http://app.example.com', false],
    ],
  },
  {
    name: 'IPv6 entries, bare and with port',
    entries: ['::1', '[fd00::5]:8090'],
    cases: [['[::1]:1234', undefined, true], ['[fd00::5]:8090', undefined, true], ['[fd00::5]:8091', undefined, false], ['127.0.0.1', undefined, false]],
  },
  {
    name: '* disables the check',
    entries: ['*'],
    cases: [['evil.example', undefined, true], ['evil.example', 'http://evil.example', true]],
  },
];

for (const { name, entries, cases } of table) {
  test(`allow-list, ${name}`, (t) => {
    const list = createHostAllowList(entries);
    for (const [host, origin, allowed] of cases) {
      t.is(list.refusal(host, origin, 'http') === undefined, allowed, `Host ${host} Origin ${origin ?? '-'}`);
    }
  });
}

const manifest = (allowed: string) => `
version: v2
kind: Spicepod
name: hosts
datasets: []
runtime:
  mcp:
    allowed_hosts: ${allowed}
`;

async function status(baseUrl: string, host: string, origin?: string): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = { ...JSON_POST_HEADERS, host, ...(origin ? { origin } : {}) };
  return rawRequest(baseUrl, { headers, body: TOOLS_LIST_BODY });
}

test('over HTTP, default list: loopback passes, a rebound name gets 403 JSON', async (t) => {
  await withRuntime(t, { manifest: 'version: v2\nkind: Spicepod\nname: hosts\ndatasets: []\n' }, async ({ baseUrl }) => {
    const port = new URL(baseUrl).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) t.is((await status(baseUrl, host)).status, 200, host);
    const refused = await status(baseUrl, `evil.example:${port}`);
    t.is(refused.status, 403);
    const body = JSON.parse(refused.body) as { error: { code: string; message: string } };
    t.is(body.error.code, 'MCP_HOST_FORBIDDEN');
    t.regex(body.error.message, /evil\.example/);
    t.is((await status(baseUrl, `localhost:${port}`, 'http://evil.example')).status, 403);
    t.is((await status(baseUrl, `localhost:${port}`, `http://localhost:${port}`)).status, 200);
  });
});

test('over HTTP, explicit forms: bare host, host:port, origin URL, IPv6, *', async (t) => {
  const forms: Array<[allowed: string, accepted: (port: string) => string, refused: (port: string) => string]> = [
    ['["quarry.internal"]', (port) => `quarry.internal:${port}`, (port) => `127.0.0.1:${port}`],
    ['["quarry.internal:1234"]', () => 'quarry.internal:1234', (port) => `quarry.internal:${port}`],
    ['["https://app.example.com"]', () => 'app.example.com:443', () => 'app.example.com:8443'],
    ['["::1"]', (port) => `[::1]:${port}`, (port) => `localhost:${port}`],
  ];
  for (const [allowed, accepted, refused] of forms) {
    await withRuntime(t, { manifest: manifest(allowed) }, async ({ baseUrl }) => {
      const port = new URL(baseUrl).port;
      t.is((await status(baseUrl, accepted(port))).status, 200, `${allowed} accepts ${accepted(port)}`);
      t.is((await status(baseUrl, refused(port))).status, 403, `${allowed} refuses ${refused(port)}`);
    });
  }
  await withRuntime(t, { manifest: manifest('["*"]') }, async ({ baseUrl, logs }) => {
    t.is((await status(baseUrl, 'evil.example', 'http://evil.example')).status, 200);
    t.true(logs.some((record) => /allowed_hosts is \["\*"\]/.test(record.message)));
  });
});
