import test from 'ava';
import { settledWithin } from '../../core/timing/settled-within.js';

test('settledWithin: true once the promise settles either way in time, false when the wait runs out', async (t) => {
  t.true(await settledWithin(Promise.resolve(1), 1_000));
  t.true(await settledWithin(Promise.reject(new Error('failed')), 1_000));
  const started = performance.now();
  t.false(await settledWithin(new Promise(() => undefined), 50));
  t.true(performance.now() - started >= 45, 'waited for the bound');
});
