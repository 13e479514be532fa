import test from 'ava';
import { DuckDBInstance } from '@duckdb/node-api';
import { clusterOrder, parsePartitionBy, partitionsPredicate, partitionPredicate, partitionId, partitionValues } from '../../plugins/scheduler/partition-keys.js';
import { discoverPartitions } from '../../plugins/scheduler/partition-discovery.js';

test('partition_by: a column, a list of expressions, bucket(N, column)', (t) => {
  t.like(parsePartitionBy('orders', 'region')[0], { kind: 'expression', sql: '"region"' });
  t.like(parsePartitionBy('orders', 'bucket(8, customer_id)')[0], { kind: 'bucket', buckets: 8, column: 'customer_id', sql: 'CAST(hash("customer_id") % 8 AS INTEGER)' });
  const keys = parsePartitionBy('orders', ["date_trunc('month', ordered_at)", 'BUCKET( 4 , "Customer Id" )']);
  t.like(keys[0], { kind: 'expression', sql: "(date_trunc('month', ordered_at))" });
  t.like(keys[1], { kind: 'bucket', buckets: 4, column: 'Customer Id' });
});

test('an executor orders its share by a bucket key\'s column and by an expression key itself', (t) => {
  t.is(clusterOrder(parsePartitionBy('orders', 'bucket(8, customer_id)')), '"customer_id"');
  t.is(clusterOrder(parsePartitionBy('orders', ["date_trunc('month', ordered_at)", 'BUCKET(4, "Customer Id")', 'region'])), `(date_trunc('month', ordered_at)), "Customer Id", "region"`);
});

test('partition_by errors name the dataset and what is accepted', (t) => {
  t.throws(() => parsePartitionBy('orders', 'bucket(0, id)'), { code: 'CLUSTER_CONFIG_INVALID', message: /dataset "orders": partition_by "bucket\(0, id\)": the bucket count must be a whole number from 1 to 1000000/ });
  t.throws(() => parsePartitionBy('orders', 'bucket(2000000, id)'), { message: /from 1 to 1000000/ });
  t.throws(() => parsePartitionBy('orders', 'bucket(4, id + 1)'), { message: /bucket\(\) takes a column name/ });
  t.throws(() => parsePartitionBy('orders', ['region', ' ']), { message: /empty entry/ });
  t.throws(() => parsePartitionBy('orders', 'region; DROP TABLE x'), { message: /one SQL expression/ });
});

test('partition ids round-trip and predicates select exactly the partition rows (checked in DuckDB)', async (t) => {
  t.deepEqual(partitionValues(partitionId(['eu', 3, null])), ['eu', 3, null]);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run(`CREATE TABLE orders AS SELECT i AS id, CASE i % 3 WHEN 0 THEN 'eu' WHEN 1 THEN 'us' ELSE NULL END AS region FROM range(300) t(i)`);
    const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJS();
    const keys = parsePartitionBy('orders', ['region', 'bucket(4, id)']);
    const partitions = await discoverPartitions('orders', 'orders', keys, rows, 5_000);
    t.is(partitions.length, 3 * 4, 'distinct regions (eu, us, NULL) times 4 buckets');
    // Every row falls in exactly one partition: the partition counts sum to the table.
    let total = 0;
    for (const values of partitions) {
      const [row] = await rows(`SELECT count(*)::INTEGER AS n FROM orders WHERE ${partitionPredicate(keys, values)}`);
      total += row!['n'] as number;
    }
    t.is(total, 300);
    const share = partitions.filter((values) => values[0] === 'eu' || values[0] === null);
    const [shareRows] = await rows(`SELECT count(*)::INTEGER AS n FROM orders WHERE ${partitionsPredicate(keys, share)}`);
    t.is(shareRows!['n'], 200);
    const regionKeys = parsePartitionBy('orders', 'region');
    const [withNull] = await rows(`SELECT count(*)::INTEGER AS n FROM orders WHERE ${partitionsPredicate(regionKeys, [['us'], [null]])}`);
    t.is(withNull!['n'], 200);
    t.is(partitionsPredicate(regionKeys, []), 'FALSE');
    // A share of several buckets: hash() once per row (list_contains), the same rows as IN.
    const bucketKeys = parsePartitionBy('orders', 'bucket(4, id)');
    t.is(partitionsPredicate(bucketKeys, [[0], [2]]), 'list_contains([0, 2], CAST(hash("id") % 4 AS INTEGER))');
    const [bucketShare] = await rows(`SELECT count(*)::INTEGER AS n, (SELECT count(*)::INTEGER FROM orders WHERE CAST(hash(id) % 4 AS INTEGER) IN (0, 2)) AS expected FROM orders WHERE ${partitionsPredicate(bucketKeys, [[0], [2]])}`);
    t.is(bucketShare!['n'], bucketShare!['expected']);
    t.true((bucketShare!['n'] as number) > 0);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
});

test('bucket keys need no query; a slow discovery times out with the dataset named', async (t) => {
  let queried = false;
  const buckets = await discoverPartitions('orders', 'orders', parsePartitionBy('orders', 'bucket(5, id)'), async () => {
    queried = true;
    return [];
  }, 1_000);
  t.deepEqual(buckets, [[0], [1], [2], [3], [4]]);
  t.false(queried);
  const never = new Promise<Array<Record<string, unknown>>>(() => {});
  await t.throwsAsync(discoverPartitions('events', 'events', parsePartitionBy('events', 'kind'), () => never, 50), {
    code: 'PARTITION_DISCOVERY_TIMEOUT',
    message: /dataset "events": listing its partition values took longer than runtime.scheduler.partition_discovery_timeout \(50 ms\)/,
  });
});
