import test from 'ava';
import { PlanIdentities } from '../../plugins/results-cache/plan-identities.js';

/**
 * A planner standing in for the engine's: case and spacing do not change a plan, and a text
 * with `boom` fails to plan. Records what it planned, and through which door: `own` is the
 * request's own plan, `text` the stand-alone planner (a group's first text, planned later).
 */
function planner() {
  const planned: Array<{ sql: string; by: 'own' | 'text' }> = [];
  const plan = async (sql: string) => {
    await new Promise((resolve) => setImmediate(resolve));
    if (sql.includes('boom')) throw new Error('Binder Error: boom');
    return `PLAN OF ${sql.toLowerCase().replace(/\s+/g, ' ')}`;
  };
  const identities = new PlanIdentities(async (sql) => {
    planned.push({ sql, by: 'text' });
    return plan(sql);
  });
  const identity = (sql: string) =>
    identities.identity(sql, async () => {
      planned.push({ sql, by: 'own' });
      return plan(sql);
    });
  return { identities, identity, planned };
}

test('texts whose constants no other text wrote are never planned, each its own identity', async (t) => {
  const { identities, identity, planned } = planner();
  const seen = new Set<string>();
  for (let id = 0; id < 200; id++) {
    const sql = `SELECT * FROM orders WHERE order_id = ${id}`;
    t.false(identities.needsPlan(sql), 'nothing to start beside the prepare');
    seen.add(await identity(sql));
  }
  t.is(seen.size, 200);
  t.deepEqual(planned, []);
  t.is(await identity('SELECT * FROM orders WHERE order_id = 7'), 'text\u0000SELECT * FROM orders WHERE order_id = 7', 'a repeated text is remembered');
  t.deepEqual(planned, []);
});

test('a second text writing the same constants plans both, the first once, and shares its identity when the plans match', async (t) => {
  const { identities, identity, planned } = planner();
  const first = "SELECT status FROM orders WHERE order_id = 1 AND region = 'eu'";
  const firstIdentity = await identity(first);
  t.deepEqual(planned, []);
  const respelled = "select  STATUS from ORDERS where order_id = 1 and region = 'eu'";
  t.true(identities.needsPlan(respelled), 'its plan is wanted beside the prepare');
  t.is(await identity(respelled), firstIdentity, 'finds the entry the first text stored');
  t.deepEqual(planned.map((entry) => `${entry.by}: ${entry.sql}`).sort(), [`own: ${respelled}`, `text: ${first}`]);
  // Same constants in another order, and a third spelling: planned themselves, the first not again.
  const reordered = "SELECT status FROM orders WHERE region = 'eu' AND order_id = 1";
  const reorderedIdentity = await identity(reordered);
  t.not(reorderedIdentity, firstIdentity, 'another plan, another identity');
  t.true(reorderedIdentity.startsWith('plan\u0000PLAN OF '));
  t.is(await identity("SELECT status   FROM orders WHERE region = 'eu' AND order_id = 1"), reorderedIdentity, 'matches the plan of a later text too');
  t.is(await identity("SELECT Status FROM Orders WHERE order_id = 1 AND region = 'eu'"), firstIdentity);
  t.deepEqual(planned.slice(2).map((entry) => entry.by), ['own', 'own', 'own'], 'the first text was planned once');
  // Other constants (a string differing in case is another constant): another group, not planned.
  await identity("SELECT status FROM orders WHERE order_id = 1 AND region = 'EU'");
  t.is(planned.length, 5);
});

test('texts without constants, and texts the scanner cannot read, still share by plan', async (t) => {
  const { identity, planned } = planner();
  const grouped = 'SELECT status, count(*) FROM orders GROUP BY status';
  const groupedIdentity = await identity(grouped);
  t.is(await identity('select status, COUNT(*) from orders group by status'), groupedIdentity);
  // Dollar quoting and escape strings: no constants read, so planned at once, like every text before.
  const dollar = await identity('SELECT $$x$$ AS a');
  t.true(dollar.startsWith('plan\u0000PLAN OF '));
  t.is(await identity('select  $$x$$ as a'), dollar);
  t.true(planned.some((entry) => entry.sql === 'SELECT $$x$$ AS a' && entry.by === 'own'));
});

test('a text that cannot be planned is keyed by its text; so is a first text whose later plan fails', async (t) => {
  const { identity } = planner();
  t.is(await identity('SELECT $$boom$$'), 'plan\u0000sql-text\u0000SELECT $$boom$$');
  const first = "SELECT 'boom', 5";
  const firstIdentity = await identity(first);
  t.is(firstIdentity, `text\u0000${first}`);
  // Its group's next text plans it: the failure leaves the first keyed by its text, the next by its own.
  const next = await identity("select 'boom', 5");
  t.is(next, "plan\u0000sql-text\u0000select 'boom', 5");
  t.not(next, firstIdentity);
});

test('texts of one group arriving together plan the first text once and agree on one identity', async (t) => {
  const { identity, planned } = planner();
  const first = 'SELECT * FROM orders WHERE order_id = 42';
  const firstIdentity = await identity(first);
  const spellings = Array.from({ length: 8 }, (_, index) => `SELECT *${' '.repeat(index + 2)}FROM orders WHERE order_id = 42`);
  const identities = await Promise.all(spellings.map(identity));
  t.deepEqual(new Set(identities), new Set([firstIdentity]));
  t.is(planned.filter((entry) => entry.by === 'text').length, 1);
  t.is(planned.filter((entry) => entry.by === 'own').length, 8);
});

test('forget() starts over: the next text of a group is a first text again', async (t) => {
  const { identities, identity, planned } = planner();
  await identity('SELECT 1');
  t.true(identities.needsPlan('select 1'));
  identities.forget();
  t.false(identities.needsPlan('select 1'));
  t.is(await identity('select 1'), 'text\u0000select 1');
  t.deepEqual(planned, []);
});
