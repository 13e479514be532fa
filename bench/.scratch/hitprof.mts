import { createLogger } from '../../core/log.js';
import { loadManifest } from '../../core/manifest/load.js';
import { ANONYMOUS } from '../../core/pipeline/types.js';
import { Runtime } from '../../core/runtime.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
const loaded = await loadManifest({ path: '/tmp/ch', bundle: defaultPlugins() });
const runtime = new Runtime({ manifest: loaded.manifest, source: loaded.source, plugins: loaded.plugins, log: createLogger({ level: 'info', sink: () => undefined }), http: '127.0.0.1:0', flight: false });
await runtime.start(); await runtime.whenLoaded();
const sql = 'SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status';
const hit = async () => { const { result } = await runtime.pipeline.execute({ sql, protocol: 'http', principal: ANONYMOUS }); const body = result.memo?.get('http:json'); if (body) { await result.batches[Symbol.asyncIterator]().return!(); return; } for await (const b of result.batches) void b; };
for (let i = 0; i < 2000; i++) await hit();
for (let round = 0; round < 3; round++) {
  const n = 50_000; const c0 = process.cpuUsage(); const t0 = performance.now();
  for (let i = 0; i < n; i++) await hit();
  const c = process.cpuUsage(c0);
  console.log('µs/hit wall', ((performance.now() - t0) * 1000 / n).toFixed(1), 'cpu', ((c.user + c.system) / n).toFixed(1));
}
await runtime.stop();
