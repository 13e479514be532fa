import test from 'ava';
import { writeDate, writeTimeOfDay, writeTimestamp, writeTimestampMicros } from '../../../core/http/encoders/render/temporal-text.js';
import { isoDate, isoTimestamp } from './helpers/expected-json.js';

const render = (write: (bytes: Uint8Array, position: number) => number): string => {
  const bytes = new Uint8Array(64);
  return Buffer.from(bytes.subarray(0, write(bytes, 0))).toString('latin1');
};

test('dates agree with JavaScript toISOString over ±100 million days, cache collisions included', (t) => {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const days = [0, -1, 1, -719528, -719529, 2932896, 2932897, -100_000_000, 100_000_000, 4096, 8192, 0, 4096];
  for (let i = 0; i < 20000; i++) days.push(Math.floor((random() - 0.5) * 200_000_000), Math.floor((random() - 0.5) * 20_000));
  const wrong = days.filter((d) => render((b, p) => writeDate(b, p, d)) !== isoDate(d));
  t.deepEqual(wrong.slice(0, 5), []);
  t.is(render((b, p) => writeDate(b, p, -719529)), '-000001-12-31');
  t.is(render((b, p) => writeDate(b, p, 2932897)), '+010000-01-01');
});

test('timestamps in every unit, before and after the epoch, with trimmed fractions', (t) => {
  const cases: [bigint, 0 | 1 | 2 | 3][] = [
    [0n, 2], [-1n, 2], [1n, 2], [-86_400_000_001n, 2], [1_706_704_496_123_456n, 2], [-2_208_988_800_000_000n, 2],
    [1_706_704_496n, 0], [-1n, 0], [1_706_704_496_120n, 1], [-1n, 1],
    [1_706_704_496_123_456_789n, 3], [-1n, 3], [9_223_372_036_854_775_000n, 3], [-9_223_372_036_854_775_000n, 3],
  ];
  const perSecond = [1n, 1000n, 1_000_000n, 1_000_000_000n];
  for (const [value, unit] of cases) {
    const asNumber = value > -(2n ** 53n) && value < 2n ** 53n ? Number(value) : value;
    t.is(render((b, p) => writeTimestamp(b, p, asNumber, unit)), isoTimestamp(value, perSecond[unit]!, [0, 3, 6, 9][unit]!, false), `${value} unit ${unit}`);
  }
  t.is(render((b, p) => writeTimestamp(b, p, 9223372036854775807n, 2)), 'infinity');
  t.is(render((b, p) => writeTimestamp(b, p, -9223372036854775807n, 2)), '-infinity');
});

test('times of day', (t) => {
  t.is(render((b, p) => writeTimeOfDay(b, p, 0, 1_000_000, 6)), '00:00:00');
  t.is(render((b, p) => writeTimeOfDay(b, p, 86_400_000_000, 1_000_000, 6)), '24:00:00');
  t.is(render((b, p) => writeTimeOfDay(b, p, 45_296_789_000, 1_000_000, 6)), '12:34:56.789');
  t.is(render((b, p) => writeTimeOfDay(b, p, 1, 1_000_000_000, 9)), '00:00:00.000000001');
});

test('the microsecond fast path writes what the general path writes', (t) => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const values = [0, -1, 1, 86_400_000_000, -86_400_000_000, 1_706_704_496_000_000, -9_007_199_254_740_991, 9_007_199_254_740_991];
  for (let i = 0; i < 20000; i++) values.push(Math.round((random() - 0.5) * 2 * 9_000_000_000_000_000), Math.round((random() - 0.5) * 1e12));
  const general = (v: number) => render((b, p) => writeTimestamp(b, p, v, 2));
  const fast = (v: number) => render((b, p) => writeTimestampMicros(b, p, v));
  t.deepEqual(values.filter((v) => fast(v) !== general(v)).slice(0, 5), []);
});
