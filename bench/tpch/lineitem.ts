/**
 * An SF1-shaped TPC-H `lineitem` (6,001,215 rows, the specification's column types and
 * value ranges) generated with plain SQL: the engine's tpch extension is not available
 * here. Distributions come from hash(), so the data is the same on every run.
 */
export const LINEITEM_ROWS = 6_001_215;

export function lineitemSql(rows = LINEITEM_ROWS): string {
  return `
SELECT
  CAST(1 + i // 4 AS BIGINT) AS l_orderkey,
  CAST(1 + hash(i, 'p') % 200000 AS BIGINT) AS l_partkey,
  CAST(1 + hash(i, 's') % 10000 AS BIGINT) AS l_suppkey,
  CAST(1 + i % 4 AS INTEGER) AS l_linenumber,
  CAST(1 + hash(i, 'q') % 50 AS DECIMAL(15, 2)) AS l_quantity,
  CAST((900 + hash(i, 'e') % 104000) * (1 + hash(i, 'q') % 50) / 100.0 AS DECIMAL(15, 2)) AS l_extendedprice,
  CAST((hash(i, 'd') % 11) / 100.0 AS DECIMAL(15, 2)) AS l_discount,
  CAST((hash(i, 't') % 9) / 100.0 AS DECIMAL(15, 2)) AS l_tax,
  CASE WHEN DATE '1992-01-02' + CAST(hash(i, 'o') % 2405 AS INTEGER) > DATE '1995-06-17' THEN 'N'
       WHEN hash(i, 'r') % 2 = 0 THEN 'R' ELSE 'A' END AS l_returnflag,
  CASE WHEN DATE '1992-01-02' + CAST(hash(i, 'o') % 2405 AS INTEGER) > DATE '1995-06-17' THEN 'O' ELSE 'F' END AS l_linestatus,
  DATE '1992-01-02' + CAST(hash(i, 'o') % 2405 AS INTEGER) AS l_shipdate,
  DATE '1992-01-02' + CAST(hash(i, 'o') % 2405 AS INTEGER) + CAST(30 + hash(i, 'c') % 61 AS INTEGER) AS l_commitdate,
  DATE '1992-01-02' + CAST(hash(i, 'o') % 2405 AS INTEGER) + CAST(1 + hash(i, 'v') % 30 AS INTEGER) AS l_receiptdate,
  (['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'])[CAST(1 + hash(i, 'i') % 4 AS BIGINT)] AS l_shipinstruct,
  (['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'])[CAST(1 + hash(i, 'm') % 7 AS BIGINT)] AS l_shipmode,
  'carefully ' || (['final', 'regular', 'ironic', 'express', 'pending'])[CAST(1 + hash(i, 'w') % 5 AS BIGINT)] || ' deposits sleep ' || CAST(hash(i, 'x') % 1000 AS VARCHAR) AS l_comment
FROM range(${rows}) AS t(i)`;
}

export const Q1 = `
SELECT l_returnflag, l_linestatus,
  sum(l_quantity) AS sum_qty,
  sum(l_extendedprice) AS sum_base_price,
  sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
  sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
  avg(l_quantity) AS avg_qty,
  avg(l_extendedprice) AS avg_price,
  avg(l_discount) AS avg_disc,
  count(*) AS count_order
FROM lineitem
WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY
GROUP BY l_returnflag, l_linestatus
ORDER BY l_returnflag, l_linestatus`;

export const Q6 = `
SELECT sum(l_extendedprice * l_discount) AS revenue
FROM lineitem
WHERE l_shipdate >= DATE '1994-01-01'
  AND l_shipdate < DATE '1994-01-01' + INTERVAL '1' YEAR
  AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01
  AND l_quantity < 24`;
