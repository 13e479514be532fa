import { QuarryError } from '../errors/quarry-error.js';
import type { Hooks } from '../hooks/hooks.js';
import type { InboundRequest, Principal } from './types.js';

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
export async function admit(hooks: Hooks, inbound: InboundRequest, authenticate?: PeerAuthentication): Promise<void> {
  await hooks.request.promise(inbound);
  if (inbound.public) return;
  if (authenticate) {
    const decided = authenticate(inbound);
    if (decided instanceof QuarryError) throw decided;
    inbound.principal = decided;
  } else {
    const refusal = await hooks.auth.promise(inbound);
    if (refusal) throw refusal;
  }
  if (inbound.write && !inbound.principal.canWrite) {
    throw new QuarryError('WRITE_NOT_ALLOWED', `${inbound.route} writes, and this caller may only read (use a key with :rw)`);
  }
}
