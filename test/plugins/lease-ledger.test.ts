import test from 'ava';
import { grantLease, type LeaseLedger, type LeaseRequest } from '../../plugins/source-rate-control/lease-ledger.js';

const base = { windowMs: 2000, budget: 40 } as const;
const ask = (ledger: LeaseLedger | undefined, request: Omit<LeaseRequest, 'windowMs' | 'budget'>) => grantLease(ledger, { ...base, ...request });

test('first leases in a window are demand-weighted shares of the budget', (t) => {
  let ledger: LeaseLedger | undefined;
  // Window 1: each replica reports its demand; the first to arrive knows only itself.
  for (const [replica, demand] of [['a', 3], ['b', 1], ['c', 1]] as const) ledger = ask(ledger, { replica, demand, window: 1, mode: 'lease' }).ledger;
  const grants: Record<string, number> = {};
  for (const [replica, demand] of [['a', 3], ['b', 1], ['c', 1]] as const) {
    const result = ask(ledger, { replica, demand, window: 2, mode: 'lease' });
    ledger = result.ledger;
    grants[replica] = result.granted;
  }
  t.deepEqual(grants, { a: 24, b: 8, c: 8 });
  t.is(ask(ledger, { replica: 'a', demand: 3, window: 2, mode: 'top-up' }).granted, 0, 'nothing left to top up');
});

test('a top-up takes only tokens not reserved for active replicas that have not leased yet', (t) => {
  let ledger: LeaseLedger | undefined;
  for (const replica of ['a', 'b', 'c']) ledger = ask(ledger, { replica, demand: 1, window: 1, mode: 'lease' }).ledger;
  ledger = ask(ledger, { replica: 'a', demand: 2, window: 2, mode: 'lease' }).ledger; // 40*2/4 = 20
  t.is(ledger.leases['a'], 20);
  t.is(ask(ledger, { replica: 'a', demand: 2, window: 2, mode: 'top-up' }).granted, 0, 'b and c keep their 10 each');
  // c stops; after two silent windows it no longer counts and its share can be taken.
  ledger = ask(ledger, { replica: 'b', demand: 1, window: 4, mode: 'lease' }).ledger;
  ledger = ask(ledger, { replica: 'a', demand: 2, window: 4, mode: 'lease' }).ledger;
  t.deepEqual(Object.keys(ledger.replicas).sort(), ['a', 'b']);
  t.is(ledger.leases['a']! + ledger.leases['b']!, 39, 'floor(40*2/3) + floor(40*1/3)');
  t.is(ask(ledger, { replica: 'a', demand: 2, window: 4, mode: 'top-up' }).granted, 1, 'the rounding remainder goes to a top-up');
});

test('leases in one window never exceed the budget, whatever the order and demands', (t) => {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  let ledger: LeaseLedger | undefined;
  const leasedByWindow = new Map<number, number>();
  let window = 1;
  for (let step = 0; step < 5000; step++) {
    if (random() < 0.05) window++;
    const replica = `r${Math.floor(random() * 5)}`;
    const result = ask(ledger, { replica, demand: random() * 10, window, mode: random() < 0.5 ? 'lease' : 'top-up' });
    ledger = result.ledger;
    leasedByWindow.set(window, (leasedByWindow.get(window) ?? 0) + result.granted);
  }
  t.true([...leasedByWindow.values()].every((total) => total <= base.budget), `most leased in one window: ${Math.max(...leasedByWindow.values())}`);
  t.true([...leasedByWindow.values()].filter((total) => total === base.budget).length > 10, 'busy windows lease the whole budget');
});

test('a replica whose clock is behind the ledger gets nothing until its window comes', (t) => {
  const { ledger } = ask(undefined, { replica: 'a', demand: 1, window: 10, mode: 'lease' });
  t.is(ask(ledger, { replica: 'b', demand: 1, window: 9, mode: 'lease' }).granted, 0);
});
