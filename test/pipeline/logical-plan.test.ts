import test from 'ava';
import { STAGE } from '../../core/hooks/stages.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { QUICKSTART_MANIFEST, withRuntime } from '../helpers/runtime.js';

/** A plugin recording each query's logical plan, as a cache plugin keying on plans would. */
function planRecorder(plans: Array<string | Error>): QuarryPlugin {
  return {
    name: 'plan-recorder',
    apply(runtime) {
      runtime.hooks.query.before.tapPromise({ name: 'plan-recorder', stage: STAGE.OBSERVE_FIRST }, async (query) => {
        plans.push(await query.logicalPlan().catch((error: Error) => error));
      });
    },
  };
}

test('semantically equal SELECTs share a logical plan; different ones do not', async (t) => {
  const plans: Array<string | Error> = [];
  await withRuntime(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true, bundle: [...defaultPlugins(), planRecorder(plans)] }, async ({ sql }) => {
    for (const text of [
      "select status from orders where category = 'toys'",
      "SELECT  status\nFROM orders\nWHERE category = 'toys'",
      "select orders.status from main.orders where category = 'toys'",
      "select status from orders where category = 'books'",
    ]) {
      t.is((await sql(text)).status, 200);
    }
  });
  const [a, b, c, d] = plans as string[];
  t.is(typeof a, 'string');
  t.is(a, b, 'whitespace and keyword case do not change the plan');
  t.is(a, c, 'qualified names do not change the plan');
  t.not(a, d, 'a different literal is a different plan');
  t.false(a!.includes('query_location'));
});

test('writes have plans too (caches must key reads only), and the plan is taken before any refusal', async (t) => {
  const plans: Array<string | Error> = [];
  await withRuntime(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true, bundle: [...defaultPlugins(), planRecorder(plans)] }, async ({ sql }) => {
    t.is((await sql('INSERT INTO orders (order_id) VALUES (1)')).status, 403);
  });
  t.is(typeof plans[0], 'string');
  t.regex(plans[0] as string, /LOGICAL_INSERT/);
});
