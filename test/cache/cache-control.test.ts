import test from 'ava';
import { isQuarryError } from '../../core/errors/quarry-error.js';
import { NO_DIRECTIVES, parseCacheControl } from '../../core/http/cache-control.js';

test('request directives are parsed case-insensitively; unknown ones are ignored', (t) => {
  t.is(parseCacheControl(undefined), NO_DIRECTIVES);
  t.deepEqual(parseCacheControl('No-Cache, no-store, ONLY-IF-CACHED, no-transform, stale-if-error=5'), {
    ...NO_DIRECTIVES,
    noCache: true,
    noStore: true,
    onlyIfCached: true,
  });
  t.deepEqual(parseCacheControl('max-age=30, min-fresh="10", max-stale'), { ...NO_DIRECTIVES, maxAgeSeconds: 30, minFreshSeconds: 10, maxStaleSeconds: Infinity });
  t.is(parseCacheControl('max-stale=5').maxStaleSeconds, 5);
});

test('a directive with a bad number is a clear CACHE_CONTROL_INVALID', (t) => {
  const error = t.throws(() => parseCacheControl('min-fresh=soon'));
  t.true(isQuarryError(error));
  t.is((error as { code?: string }).code, 'CACHE_CONTROL_INVALID');
  t.is(error?.message, 'Cache-Control "min-fresh=soon": min-fresh needs a whole number of seconds (e.g. min-fresh=30), got "soon"');
  t.throws(() => parseCacheControl('max-age'), { message: /max-age needs a whole number of seconds \(e\.g\. max-age=30\), got no value/ });
});
