import test from 'ava';
import { ShareGate } from '../../plugins/scheduler/share-gate.js';

test('an exact scan is admitted only for exactly the partitions the table holds, and not during a reload', async (t) => {
  const gate = new ShareGate(['orders']);
  t.true(gate.admit('orders', []), 'the table starts empty');
  gate.release('orders');
  t.false(gate.admit('orders', ['[1]']));
  t.false(gate.admit('other', []), 'an unknown dataset: nothing is known about its table');

  await gate.beginReload('orders');
  t.false(gate.admit('orders', []), 'no exact scan while the table is swapped');
  gate.endReload('orders', new Set(['[1]', '[4]']));
  t.true(gate.admit('orders', ['[4]', '[1]']));
  t.false(gate.admit('orders', ['[1]']), 'a subset needs the predicate');
  t.false(gate.admit('orders', ['[1]', '[4]', '[7]']), 'a partition it does not hold');

  // A reload waits for the admitted scan to end, and refuses new ones meanwhile.
  let reloaded = false;
  const reload = gate.beginReload('orders').then(() => (reloaded = true));
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.false(reloaded, 'the reload waits for the running exact scan');
  t.false(gate.admit('orders', ['[1]', '[4]']));
  gate.release('orders');
  await reload;
  t.true(reloaded);
  gate.endReload('orders', undefined);
  t.false(gate.admit('orders', ['[1]', '[4]']), 'after a failed reload the table is unknown: scans carry the predicate');
});

test('a reload does not wait forever on a scan that never reports its end', async (t) => {
  const gate = new ShareGate(['orders'], 30);
  t.true(gate.admit('orders', []));
  const started = Date.now();
  await gate.beginReload('orders');
  t.true(Date.now() - started >= 25);
});
