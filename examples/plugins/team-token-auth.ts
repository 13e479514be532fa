/**
 * A custom auth scheme: each team sends its token in `X-Team-Token`. Written against the
 * published entry points only (`quarry`, `quarry/plugin`), the way a plugin outside the
 * Quarry repository is written; see docs/plugins/writing-plugins.md.
 *
 *   plugins:
 *     - name: api-key            # the built-in scheme steps aside
 *       enabled: false
 *     - from: ./team-token-auth.ts
 *       params:
 *         tokens:
 *           - { token: "${ env:BLUE_TOKEN }", team: blue, can_write: true }
 *           - { token: "${ env:GREEN_TOKEN }", team: green }
 */
import { timingSafeEqual } from 'node:crypto';
import { definePlugin, refuse, STAGE, z } from 'quarry';
import type { InboundRequest, QuarryError, QuarryPlugin } from 'quarry/plugin';

const NAME = 'team-token-auth';

const paramsSchema = z.strictObject({
  tokens: z
    .array(z.strictObject({ token: z.string().min(16, 'a token has at least 16 characters'), team: z.string().min(1), can_write: z.boolean().default(false) }))
    .min(1, 'list at least one token'),
});

interface Team {
  readonly token: Buffer;
  readonly name: string;
  readonly canWrite: boolean;
}

/** The module's default export: a factory given the manifest entry's `params` (secrets already replaced). */
export default function teamTokenAuth(params: Record<string, unknown>): QuarryPlugin {
  const parsed = paramsSchema.safeParse(params);
  // Thrown from the factory: quarryd stops at start-up with the plugin's name and this message.
  if (!parsed.success) throw new Error(`params: ${z.prettifyError(parsed.error)}`);
  const teams: Team[] = parsed.data.tokens.map((entry) => ({ token: Buffer.from(entry.token), name: entry.team, canWrite: entry.can_write }));

  return definePlugin({
    name: NAME,
    apply(runtime) {
      // Auth taps run for every request on every door (HTTP, Flight, MCP), after `request`.
      runtime.hooks.auth.tap({ name: NAME, stage: STAGE.AUTHENTICATE }, (request: InboundRequest): QuarryError | undefined => {
        const presented = request.headers['x-team-token'];
        if (presented === undefined) return refuse('TEAM_TOKEN_MISSING', 'send X-Team-Token: <your team token>', 401);
        const team = teams.find((candidate) => sameToken(candidate.token, presented));
        if (team === undefined) return refuse('TEAM_TOKEN_INVALID', 'the X-Team-Token is not one this runtime knows', 401);
        request.principal = {
          id: `team:${team.name}`,
          method: 'team-token',
          canWrite: team.canWrite,
          // What a refused write tells this caller: the core words the refusal, the scheme says how to get write access.
          ...(team.canWrite ? {} : { readOnlyBecause: 'ask for a team token with can_write: true' }),
        };
        return undefined;
      });
    },
  });
}

/** Compares in constant time, so a token cannot be guessed byte by byte from response times. */
function sameToken(expected: Buffer, presented: string): boolean {
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
