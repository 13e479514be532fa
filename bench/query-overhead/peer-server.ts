/**
 * The peer of the query-overhead benchmark: what a user would write instead of Quarry, a
 * minimal fastify server answering `POST /v1/sql` with the rows of `@duckdb/node-api` as JSON,
 * over the same Parquet file loaded into a table (`orders`, or the name given after the file).
 * No auth, no caches, no history, no limits. Prints its port on stdout. The tpch bench runs it
 * too, as what any HTTP server in front of DuckDB adds.
 */
import Fastify from 'fastify';
import { DuckDBInstance } from '@duckdb/node-api';

const parquet = process.argv[2]!;
const table = process.argv[3] ?? 'orders';
const instance = await DuckDBInstance.create(':memory:');
const setup = await instance.connect();
await setup.run(`CREATE TABLE "${table.replace(/"/g, '""')}" AS SELECT * FROM read_parquet('${parquet.replace(/'/g, "''")}')`);
setup.closeSync();
// A connection per request in flight, kept for the next one (DuckDB runs one statement per connection at a time).
const idle: Awaited<ReturnType<typeof instance.connect>>[] = [];

const app = Fastify({ logger: false });
app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, payload, done) => done(null, payload));
app.post('/v1/sql', async (request, reply) => {
  const connection = idle.pop() ?? (await instance.connect());
  try {
    const result = await connection.runAndReadAll(request.body as string);
    return reply.header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(result.getRowObjectsJson()));
  } catch (error) {
    return reply.status(400).send({ error: (error as Error).message });
  } finally {
    idle.push(connection);
  }
});
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
console.log(typeof address === 'object' && address ? address.port : 0);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
