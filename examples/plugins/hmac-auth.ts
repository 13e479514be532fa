/**
 * An example auth plugin: HMAC-signed requests instead of API keys. It uses only the
 * public plugin API (the auth hook, a manifest section, error codes), so it is loaded from
 * the manifest without touching Quarry's code:
 *
 *   plugins:
 *     - from: ./hmac-auth.ts
 *   runtime:
 *     hmac_auth:
 *       clients:
 *         - id: reporting
 *           secret: ${ secrets:HMAC_REPORTING_SECRET }
 *
 * A client signs `METHOD\nPATH\nTIMESTAMP` (sign-request.ts shows how) and sends
 * `X-Quarry-Client`, `X-Quarry-Timestamp` (Unix seconds) and `X-Quarry-Signature` (hex).
 */
import { timingSafeEqual } from 'node:crypto';
import { GRPC, QuarryError, STAGE, defineErrorCodes, definePlugin, z } from 'quarry';
import type { InboundRequest, ManifestSectionSlice, QuarryPlugin } from 'quarry/plugin';
import { sign, signingText } from './hmac-signing.js';

// Plugins own their error codes: registered once, when the module loads.
defineErrorCodes({
  HMAC_SIGNATURE_MISSING: { http: 401, grpc: GRPC.UNAUTHENTICATED, description: 'hmac-auth example: the request is not signed.' },
  HMAC_SIGNATURE_INVALID: { http: 401, grpc: GRPC.UNAUTHENTICATED, description: 'hmac-auth example: unknown client, stale timestamp or wrong signature.' },
});

const settingsSchema = z.strictObject({
  clients: z
    .array(z.strictObject({ id: z.string().min(1), secret: z.string().min(1), can_write: z.boolean().default(false) }))
    .min(1, 'list at least one client'),
  /** How far a request's timestamp may be from the server's clock, in seconds (limits replays). */
  max_skew_seconds: z.number().int().positive().default(300),
});
type Settings = z.output<typeof settingsSchema>;

const slice: ManifestSectionSlice = {
  path: 'runtime.hmac_auth',
  schema: settingsSchema,
  // `${ secrets:NAME }` is replaced in these fields, and --check prints them as ***.
  secretFields: ['clients.*.secret'],
  sensitiveFields: ['clients.*.secret'],
};

/** The scheme (hapi's word): how one request's credential is checked. The manifest section is the strategy. */
function hmacScheme(settings: Settings, now: () => number) {
  const clients = new Map(settings.clients.map((client) => [client.id, client]));
  return (request: InboundRequest): QuarryError | undefined => {
    const id = request.headers['x-quarry-client'];
    const timestamp = request.headers['x-quarry-timestamp'];
    const signature = request.headers['x-quarry-signature'];
    if (!id || !timestamp || !signature) {
      return new QuarryError('HMAC_SIGNATURE_MISSING', 'sign the request: send X-Quarry-Client, X-Quarry-Timestamp and X-Quarry-Signature');
    }
    const skew = Math.abs(now() / 1000 - Number(timestamp));
    const client = clients.get(id);
    // `route` is the path (`/v1/sql`), the route template for parameterised routes, or the gRPC method path.
    const expected = client ? Buffer.from(sign(client.secret, signingText(request.method, request.route, timestamp))) : undefined;
    const given = Buffer.from(signature);
    const valid = expected !== undefined && expected.length === given.length && timingSafeEqual(expected, given);
    if (!valid || !Number.isFinite(skew) || skew > settings.max_skew_seconds) {
      return new QuarryError('HMAC_SIGNATURE_INVALID', 'the signature does not verify (unknown client, wrong secret, or a timestamp more than max_skew_seconds away)');
    }
    request.principal = { id: `hmac:${id}`, method: 'hmac', canWrite: client!.can_write };
    return undefined;
  };
}

/** The module's default export: a factory the loader calls with the entry's `params` (unused here). */
export default function createHmacAuthPlugin(params: { now?: () => number } = {}): QuarryPlugin {
  return definePlugin({
    name: 'hmac-auth',
    manifest: [slice],
    apply(runtime) {
      const settings = runtime.section<Settings>('runtime.hmac_auth');
      if (!settings) throw new Error('configure runtime.hmac_auth.clients to use this plugin');
      // AUTHENTICATE, like api-key: client certificates (TRANSPORT) are checked before it.
      runtime.hooks.auth.tap({ name: 'hmac-auth', stage: STAGE.AUTHENTICATE }, hmacScheme(settings, params.now ?? Date.now));
      runtime.log.info('HMAC request signing required', { clients: settings.clients.length });
    },
  });
}
