/**
 * The baseline of the cache-hit benchmark: a bare fastify server in its own process that
 * answers `POST /v1/sql` with fixed bytes (the same JSON a cache hit returns), so the
 * ratio measures what Quarry adds on top of fastify itself. Prints its port on stdout.
 */
import Fastify from 'fastify';

const body = process.argv[2] ?? '{"hello":"world"}';
const app = Fastify({ logger: false });
app.addContentTypeParser('text/plain', { parseAs: 'buffer' }, (_request, payload, done) => done(null, payload));
app.post('/v1/sql', async (_request, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(body));
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
console.log(typeof address === 'object' && address ? address.port : 0);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
