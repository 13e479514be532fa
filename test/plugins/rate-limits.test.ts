import test from 'ava';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { effectiveLimits, limiterKey } from '../../plugins/source-rate-control/limits.js';

test('no limit configured: no rate control and no jitter', (t) => {
  t.is(effectiveLimits({}, {}), undefined);
  t.is(effectiveLimits({ http_rate_control_jitter_min: 50 }, { rate_control_jitter_max: '80ms' }), undefined, 'jitter alone does not switch rate control on');
});

test('a configured limit brings the 5 ms / 10 ms jitter defaults', (t) => {
  t.deepEqual(effectiveLimits({ http_requests_per_minute_limit: 100 }, undefined), { maxConcurrent: undefined, perSecond: undefined, perMinute: 100, jitterMinMs: 5, jitterMaxMs: 10 });
  t.deepEqual(effectiveLimits({}, { max_concurrent_requests: '3' }), { maxConcurrent: 3, perSecond: undefined, perMinute: undefined, jitterMinMs: 5, jitterMaxMs: 10 });
});

test('precedence: dataset param, then runtime default, then unset, key by key', (t) => {
  const runtime = { http_max_concurrent_requests: 8, http_requests_per_second_limit: 20, http_rate_control_jitter_min: 1, http_rate_control_jitter_max: 2 };
  t.deepEqual(effectiveLimits(runtime, { requests_per_second_limit: '5', rate_control_jitter_max: '30ms' }), { maxConcurrent: 8, perSecond: 5, perMinute: undefined, jitterMinMs: 1, jitterMaxMs: 30 });
  t.deepEqual(effectiveLimits(runtime, {}), { maxConcurrent: 8, perSecond: 20, perMinute: undefined, jitterMinMs: 1, jitterMaxMs: 2 });
});

test('only the minimum or the maximum set: the other follows the default without crossing it', (t) => {
  t.like(effectiveLimits({ http_requests_per_second_limit: 1, http_rate_control_jitter_min: 50 }, {}), { jitterMinMs: 50, jitterMaxMs: 50 });
  t.like(effectiveLimits({ http_requests_per_second_limit: 1, http_rate_control_jitter_max: 2 }, {}), { jitterMinMs: 2, jitterMaxMs: 2 });
});

test('bad overrides name the dataset and key', (t) => {
  const zero = t.throws(() => effectiveLimits({}, { max_concurrent_requests: '0' }, 'orders'));
  t.is((zero as QuarryError).code, 'RATE_CONTROL_PARAM_INVALID');
  t.is(zero!.message, 'dataset orders: params.max_concurrent_requests "0" is not valid; use a whole number of 1 or more');
  t.regex(t.throws(() => effectiveLimits({}, { requests_per_minute_limit: '5', rate_control_jitter_min: 'soon' }, 'orders'))!.message, /params\.rate_control_jitter_min "soon" is not a duration/);
  t.regex(t.throws(() => effectiveLimits({ http_requests_per_second_limit: 1 }, { rate_control_jitter_min: '20ms', rate_control_jitter_max: '10ms' }, 'orders'))!.message, /jitter minimum \(20 ms\) is greater than its maximum \(10 ms\)/);
});

test('limiters are per origin and per effective limits', (t) => {
  const limits = effectiveLimits({ http_requests_per_second_limit: 5 }, {})!;
  t.not(limiterKey('https://a.example', limits), limiterKey('https://b.example', limits));
  t.not(limiterKey('https://a.example', limits), limiterKey('https://a.example', effectiveLimits({ http_requests_per_second_limit: 5 }, { requests_per_second_limit: '6' })!));
  t.is(limiterKey('https://a.example', limits), limiterKey('https://a.example', effectiveLimits({ http_requests_per_second_limit: 5 }, {})!));
});
