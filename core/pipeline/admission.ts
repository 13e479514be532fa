import { QuarryError, isQuarryError, toQuarryError } from '../errors/quarry-error.js';
import type { Hooks } from '../hooks/hooks.js';
import { readOnlyRefusal, type InboundRequest, type Principal } from './types.js';

/**
 * Decides the caller from the connection itself, in place of `hooks.auth`: for a listener
 * whose transport already authenticated the peer (mutual TLS against a dedicated CA). A
 * QuarryError refuses the request.
 */
export type PeerAuthentication = (inbound: InboundRequest) => Principal | QuarryError;

/**
 * The first steps every door takes for every request: `request` taps observe or refuse,
 * then, for non-public routes, `auth` taps decide who is calling (or `authenticate`, on a
 * listener that authenticates peers itself). Routes that write need a caller allowed to write.
 */
export function admit(hooks: Hooks, inbound: InboundRequest, authenticate?: PeerAuthentication): Promise<void> {
  return new Promise((resolve, reject) => admitThen(hooks, inbound, (error) => (error ? reject(error) : resolve()), authenticate));
}

/**
 * `admit` with a callback: the hooks run through tapable's callback path, which makes no
 * promises when every tap is synchronous (the HTTP listener admits every request this way).
 */
export function admitThen(hooks: Hooks, inbound: InboundRequest, done: (error?: unknown) => void, authenticate?: PeerAuthentication): void {
  const authorise = () => {
    if (inbound.write && !inbound.principal.canWrite) {
      return done(new QuarryError('WRITE_NOT_ALLOWED', `${inbound.route} writes, and ${readOnlyRefusal(inbound.principal)}`));
    }
    done();
  };
  hooks.request.callAsync(inbound, (requestError) => {
    if (requestError) return done(requestError);
    if (inbound.public) return done();
    if (authenticate) {
      const decided = authenticate(inbound);
      if (isQuarryError(decided)) return done(toQuarryError(decided));
      inbound.principal = decided;
      return authorise();
    }
    hooks.auth.callAsync(inbound, (authError, refusal) => {
      if (authError) return done(authError);
      if (refusal) return done(refusal);
      authorise();
    });
  });
}
