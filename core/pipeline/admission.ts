import { QuarryError } from '../errors/quarry-error.js';
import type { Hooks } from '../hooks/hooks.js';
import type { InboundRequest } from './types.js';

/**
 * The first steps every door takes for every request: `request` taps observe or refuse,
 * then, for non-public routes, `auth` taps decide who is calling. Routes that write need a
 * caller allowed to write.
 */
export function admit(hooks: Hooks, inbound: InboundRequest): Promise<void> {
  return new Promise((resolve, reject) => admitThen(hooks, inbound, (error) => (error ? reject(error) : resolve())));
}

/**
 * `admit` with a callback: the hooks run through tapable's callback path, which makes no
 * promises when every tap is synchronous (the HTTP listener admits every request this way).
 */
export function admitThen(hooks: Hooks, inbound: InboundRequest, done: (error?: unknown) => void): void {
  hooks.request.callAsync(inbound, (requestError) => {
    if (requestError) return done(requestError);
    if (inbound.public) return done();
    hooks.auth.callAsync(inbound, (authError, refusal) => {
      if (authError) return done(authError);
      if (refusal) return done(refusal);
      if (inbound.write && !inbound.principal.canWrite) {
        return done(new QuarryError('WRITE_NOT_ALLOWED', `${inbound.route} writes, and this caller may only read (use a key with :rw)`));
      }
      done();
    });
  });
}
