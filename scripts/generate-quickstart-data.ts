/**
 * Writes the quickstart's data: 500 customers (CSV) and 5,000 orders (Parquet) with
 * realistic shapes. Deterministic (values come from hash()), so re-running it gives the
 * same files; the files are committed so `npm start` needs no extra step.
 *   node --import tsx scripts/generate-quickstart-data.ts
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';

const directory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../examples/quickstart/data');
const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();

await connection.run(`
  CREATE TABLE customers AS
  SELECT
    i AS customer_id,
    (['Ada','Grace','Alan','Edsger','Barbara','Donald','Frances','Ken','Margaret','Tim','Radia','Linus'])[CAST(1 + hash(i, 'first') % 12 AS BIGINT)] || ' ' ||
    (['Lovelace','Hopper','Turing','Dijkstra','Liskov','Knuth','Allen','Thompson','Hamilton','Berners-Lee','Perlman','Torvalds'])[CAST(1 + hash(i, 'last') % 12 AS BIGINT)] AS name,
    (['Lisbon','Berlin','Nairobi','São Paulo','Osaka','Toronto','Melbourne','Reykjavík','Zürich','Austin'])[CAST(1 + hash(i, 'city') % 10 AS BIGINT)] AS city,
    (['PT','DE','KE','BR','JP','CA','AU','IS','CH','US'])[CAST(1 + hash(i, 'city') % 10 AS BIGINT)] AS country,
    DATE '2021-01-01' + CAST(hash(i, 'signup') % 1200 AS INTEGER) AS signed_up_on,
    hash(i, 'tier') % 10 < 2 AS is_premium
  FROM range(1, 501) AS t(i)`);

await connection.run(`
  CREATE TABLE orders AS
  SELECT
    i AS order_id,
    CAST(1 + hash(i, 'customer') % 500 AS BIGINT) AS customer_id,
    TIMESTAMP '2024-01-01 00:00:00' + to_seconds(CAST(hash(i, 'time') % (366 * 86400) AS BIGINT)) AS ordered_at,
    (['pending','paid','shipped','delivered','cancelled','refunded'])[CAST(1 + CASE WHEN hash(i, 's') % 100 < 70 THEN 3 WHEN hash(i, 's') % 100 < 85 THEN 2 ELSE hash(i, 's') % 6 END AS BIGINT)] AS status,
    (['books','electronics','garden','toys','grocery','apparel','sports'])[CAST(1 + hash(i, 'cat') % 7 AS BIGINT)] AS category,
    CAST(1 + hash(i, 'qty') % 5 AS INTEGER) AS quantity,
    CAST((5 + (hash(i, 'price') % 49500) / 100.0) AS DECIMAL(10, 2)) AS unit_price,
    CAST(CASE WHEN hash(i, 'disc') % 10 = 0 THEN 0.15 WHEN hash(i, 'disc') % 10 = 1 THEN 0.05 ELSE 0 END AS DECIMAL(4, 2)) AS discount,
    hash(i, 'gift') % 20 = 0 AS is_gift,
    CASE WHEN hash(i, 'note') % 9 = 0 THEN 'leave at the door' WHEN hash(i, 'note') % 9 = 1 THEN 'call on arrival' ELSE NULL END AS delivery_note
  FROM range(1, 5001) AS t(i)`);

await connection.run(`COPY (SELECT * FROM customers ORDER BY customer_id) TO '${directory}/customers.csv' (HEADER, DELIMITER ',')`);
await connection.run(`COPY (SELECT * FROM orders ORDER BY order_id) TO '${directory}/orders.parquet' (FORMAT PARQUET, COMPRESSION ZSTD)`);
const counts = await connection.runAndReadAll('SELECT (SELECT count(*) FROM customers), (SELECT count(*) FROM orders)');
console.log(`wrote ${directory}: customers=${counts.getRows()[0]![0]} orders=${counts.getRows()[0]![1]}`);
connection.closeSync();
instance.closeSync();
