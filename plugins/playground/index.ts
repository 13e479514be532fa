/**
 * The playground: a SQL page served at `/` and `/play` by the runtime itself (editor, results
 * read as Arrow IPC from /v1/sql, charts, datasets, runtime figures). The page and its assets
 * hold no data and are public; everything the page shows comes from the API behind the same
 * auth as any client, plus two small routes of its own: `/v1/playground/context` (may the
 * caller write, which views exist) and `/v1/playground/figures` (live figures from the metrics).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { QuarryError } from '../../core/errors/quarry-error.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { loadAssets, type PlaygroundAssets } from './assets.js';
import './errors.js';
import { LiveFigures } from './live-figures.js';
import { contentSecurityPolicy, HARDENING_HEADERS, newNonce } from './page-headers.js';

export const PLAYGROUND_PLUGIN_NAME = 'playground';
export const PLAYGROUND_PAGES = ['/', '/play', '/play/'] as const;

export interface PlaygroundPluginOptions {
  /** Where the built front end is (default: dist/playground/ of the package); tests point elsewhere. */
  assetsFolder?: string;
}

const acceptsGzip = (request: FastifyRequest) => /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));

export function createPlaygroundPlugin(options: PlaygroundPluginOptions = {}): QuarryPlugin {
  return {
    name: PLAYGROUND_PLUGIN_NAME,
    apply(runtime) {
      let assets: PlaygroundAssets | undefined;
      let missing = 'the runtime has not started';
      runtime.hooks.startup.tapPromise(PLAYGROUND_PLUGIN_NAME, async () => {
        const loaded = loadAssets(options.assetsFolder);
        if ('missing' in loaded) {
          missing = loaded.missing;
          runtime.log.warn(`the playground is not served: its front end is not built (${missing}); run npm run build`);
        } else assets = loaded;
      });
      const built = (): PlaygroundAssets => {
        if (assets === undefined) throw new QuarryError('PLAYGROUND_NOT_BUILT', `the playground's front end is not built (${missing}); run \`npm run build\` in the checkout`);
        return assets;
      };

      const page = async (_request: FastifyRequest, reply: FastifyReply) => {
        const { pageTemplate, version } = built();
        const nonce = newNonce();
        // A fresh nonce per response: the page is never cached.
        return reply
          .headers({ ...HARDENING_HEADERS, 'content-security-policy': contentSecurityPolicy(nonce), 'cache-control': 'no-store' })
          .type('text/html; charset=utf-8')
          .send(pageTemplate.replaceAll('{{nonce}}', nonce).replaceAll('{{version}}', version));
      };
      for (const route of PLAYGROUND_PAGES) runtime.http.get(route, { config: { public: true } }, page);

      runtime.http.get<{ Params: { file: string }; Querystring: { v?: string } }>('/play/assets/:file', { config: { public: true } }, async (request, reply) => {
        const { files, version } = built();
        const asset = files.get(request.params.file);
        if (asset === undefined) throw new QuarryError('ROUTE_NOT_FOUND', `no playground asset ${request.params.file}; the page uses ${[...files.keys()].join(', ')}`);
        const gzip = acceptsGzip(request);
        // Versioned URLs (what the page asks for) never change: cache them for good.
        reply.headers({
          ...HARDENING_HEADERS,
          'content-type': asset.contentType,
          'cache-control': request.query.v === version ? 'public, max-age=31536000, immutable' : 'no-cache',
          vary: 'Accept-Encoding',
        });
        if (gzip) reply.header('content-encoding', 'gzip');
        return reply.send(gzip ? asset.gzipped : asset.body);
      });

      runtime.http.get('/v1/playground/context', async (request, reply) => {
        const principal = request.inbound.principal;
        return reply.type('application/json; charset=utf-8').send({
          principal: principal.id,
          may_write: principal.canWrite,
          views: runtime.manifest.views.map((view) => ({ name: view.name, description: view.description ?? null })),
        });
      });

      const figures = new LiveFigures(runtime.metrics);
      runtime.http.get('/v1/playground/figures', async (_request, reply) => reply.type('application/json; charset=utf-8').send(figures.report()));
    },
  };
}
