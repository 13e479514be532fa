import { FlightClient } from './core/flight/client/flight-client.js';
import { packAny } from './core/flight/flight-any.js';
import { CommandStatementQuerySchema } from './core/flight/generated/arrow/flight/protocol/sql/flight_sql_pb.js';
const port = process.argv[2] ?? '7701';
const sql = process.argv[3] ?? 'SELECT count(*), sum(amount) FROM events WHERE customer_id = 42';
const client = new FlightClient({ endpoint: `127.0.0.1:${port}` });
const ticket = packAny(CommandStatementQuerySchema, { query: sql });
const med = (a: number[]) => a.sort((x, y) => x - y)[a.length >> 1]!;
for (let rep = 0; rep < 3; rep++) {
  const first: number[] = [], total: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t0 = performance.now();
    const stream = await client.doGet(ticket, { headers: { 'cache-control': 'no-cache' } });
    const t1 = performance.now();
    for await (const _ of stream.batches);
    const t2 = performance.now();
    if (i >= 50) { first.push(t1 - t0); total.push(t2 - t0); }
  }
  console.log(`first ${med(first).toFixed(2)} total ${med(total).toFixed(2)}`);
}
client.close();
