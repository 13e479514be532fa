import Fastify from 'fastify';
const body = Buffer.from(process.argv[2] ?? '{"hello":"world"}');
const app = Fastify({ logger: false });
app.addContentTypeParser('text/plain', { parseAs: 'buffer' }, (_request, payload, done) => done(null, payload));
app.post('/v1/sql', async (_request, reply) => reply.header('content-type', 'text/plain; charset=utf-8').header('x-cache', 'HIT').header('results-cache-status', 'HIT').header('results-cache-scope', 'shared').header('content-length', body.length).send(body));
await app.listen({ host: '127.0.0.1', port: 18095 });
