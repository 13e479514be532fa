import test from 'ava';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { QUARRY_ERROR_BRAND, QuarryError, refuse, toQuarryError } from '../../core/errors/quarry-error.js';
import { GRPC } from '../../core/errors/codes.js';
import { STAGE } from '../../core/hooks/stages.js';
import { startRuntime } from '../helpers/runtime.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';

/**
 * A plugin may build its refusals with another copy of Quarry than the running one (its own
 * node_modules/quarry, dist/ beside core/). Such an error is another class: the runtime must
 * recognise it by its registered brand and answer with the statuses it carries.
 */
class ForeignQuarryError extends Error {
  readonly [QUARRY_ERROR_BRAND] = true;
  constructor(
    readonly code: string,
    message: string,
    readonly httpStatus: number,
    readonly grpcStatus: number,
  ) {
    super(message);
  }
}

test('another copy\'s error keeps its code, message and statuses; a plain Error does not pass for one', (t) => {
  const adopted = toQuarryError(new ForeignQuarryError('TEAM_REQUIRED', 'send X-Team: data', 401, GRPC.UNAUTHENTICATED));
  t.true(adopted instanceof QuarryError);
  t.deepEqual([adopted.code, adopted.message, adopted.httpStatus, adopted.grpcStatus], ['TEAM_REQUIRED', 'send X-Team: data', 401, GRPC.UNAUTHENTICATED]);
  const lookalike = Object.assign(new Error('not a refusal'), { code: 'TEAM_REQUIRED', httpStatus: 401 });
  t.is(toQuarryError(lookalike).code, 'INTERNAL', 'a code and a status alone are not the brand');
});

test('refuse() gives a code the table does not hold its own statuses; gRPC follows HTTP', (t) => {
  const refusal = refuse('TEAM_REQUIRED', 'send X-Team: data', 401);
  t.deepEqual([refusal.httpStatus, refusal.grpcStatus], [401, GRPC.UNAUTHENTICATED]);
  t.deepEqual([refuse('SLOW_DOWN', 'later', 429).grpcStatus, refuse('GONE', 'moved', 404).grpcStatus], [GRPC.RESOURCE_EXHAUSTED, GRPC.NOT_FOUND]);
  t.is(refuse('NOT_IN_THE_TABLE', 'no status given').httpStatus, 500);
  t.throws(() => refuse('BAD', 'status out of range', 200), { instanceOf: RangeError });
});

test('a foreign refusal from an auth tap answers HTTP with its status and code, not INTERNAL 500', async (t) => {
  const foreignAuth: QuarryPlugin = {
    name: 'foreign-auth',
    apply(runtime) {
      runtime.hooks.auth.tap({ name: 'foreign-auth', stage: STAGE.AUTHENTICATE }, (request) => {
        if (request.headers['x-team'] === 'data') return undefined;
        return new ForeignQuarryError('TEAM_REQUIRED', 'send X-Team: data', 401, GRPC.UNAUTHENTICATED) as unknown as QuarryError;
      });
      runtime.hooks.query.before.tap({ name: 'foreign-auth' }, (query) => {
        if (query.sql.includes('forbidden')) throw new ForeignQuarryError('FORBIDDEN_WORD', 'that word is not allowed', 403, GRPC.PERMISSION_DENIED);
      });
    },
  };
  const context = await startRuntime({ manifest: 'datasets: []\n', bundle: [...defaultPlugins(), foreignAuth] });
  try {
    const refused = await fetch(`${context.baseUrl}/v1/sql`, { method: 'POST', body: 'SELECT 1' });
    t.is(refused.status, 401);
    t.deepEqual(await refused.json(), { error: { code: 'TEAM_REQUIRED', message: 'send X-Team: data' } });
    const thrown = await fetch(`${context.baseUrl}/v1/sql`, { method: 'POST', body: "SELECT 'forbidden'", headers: { 'x-team': 'data' } });
    t.is(thrown.status, 403);
    t.deepEqual(await thrown.json(), { error: { code: 'FORBIDDEN_WORD', message: 'that word is not allowed' } });
  } finally {
    await context.runtime.stop();
  }
});
