import { QuarryError } from '../errors/quarry-error.js';
import type { Hooks } from '../hooks/hooks.js';
import type { InboundRequest } from './types.js';

/**
 * The first steps every door takes for every request: `request` taps observe or refuse,
 * then, for non-public routes, `auth` taps decide who is calling. Routes that write need a
 * caller allowed to write.
 */
export async function admit(hooks: Hooks, inbound: InboundRequest): Promise<void> {
  await hooks.request.promise(inbound);
  if (inbound.public) return;
  const refusal = await hooks.auth.promise(inbound);
  if (refusal) throw refusal;
  if (inbound.write && !inbound.principal.canWrite) {
    throw new QuarryError('WRITE_NOT_ALLOWED', `${inbound.route} writes, and this caller may only read (use a key with :rw)`);
  }
}
