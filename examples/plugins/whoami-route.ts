/**
 * A route: `GET /v1/whoami` answers who the runtime takes the caller to be. Routes a plugin
 * adds to `runtime.http` pass the same request and auth hooks as the runtime's own, so this
 * one sees the principal the auth plugin set (here: team-token-auth's `team:<name>`).
 *
 *   plugins:
 *     - from: ./whoami-route.ts
 */
import { definePlugin } from 'quarry';
import type { QuarryPlugin } from 'quarry/plugin';

export default definePlugin({
  name: 'whoami-route',
  apply(runtime) {
    runtime.http.get('/v1/whoami', async (request) => {
      // `request.inbound` is the door-neutral view of the request; its principal is what the auth hook decided.
      const { principal } = request.inbound;
      return { id: principal.id, method: principal.method, can_write: principal.canWrite };
    });
  },
}) satisfies QuarryPlugin;
