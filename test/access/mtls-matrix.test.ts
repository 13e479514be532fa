/**
 * The client-certificate matrix: client_auth_mode {none, request, required} × client
 * certificate {none, valid, foreign CA, expired} × {HTTP probe, HTTP query, Flight call}.
 * No metrics listener exists yet; when it does, it gets no client-auth gate (a column to add).
 */
import test from 'ava';
import { status } from '@grpc/grpc-js';
import { STAGE } from '../../core/hooks/stages.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import type { Principal } from '../../core/pipeline/types.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { createTestPki, type TestPki } from '../helpers/certificates.js';
import { startRuntime, type TestRuntime } from '../helpers/runtime.js';
import { https, mutualTlsFlightClient, type ClientTls } from '../helpers/tls-clients.js';
import { ACCESS_FILES, KEYS, accessManifest } from './access-fixtures.js';

type Mode = 'none' | 'request' | 'required';
type Presented = 'no certificate' | 'valid' | 'foreign CA' | 'expired';
const presentedCases: Presented[] = ['no certificate', 'valid', 'foreign CA', 'expired'];

/** HTTP query status and Flight outcome per mode and certificate (probes always answer 200). */
const expected: Record<Mode, Record<Presented, { http: number; code?: string; flight: number }>> = {
  none: {
    'no certificate': { http: 200, flight: status.OK },
    valid: { http: 200, flight: status.OK },
    'foreign CA': { http: 200, flight: status.OK },
    expired: { http: 200, flight: status.OK },
  },
  request: {
    'no certificate': { http: 200, flight: status.OK },
    valid: { http: 200, flight: status.OK },
    'foreign CA': { http: 401, code: 'CLIENT_CERTIFICATE_INVALID', flight: status.OK /* grpc-js hides unverified certificates: treated as none */ },
    expired: { http: 401, code: 'CLIENT_CERTIFICATE_INVALID', flight: status.OK },
  },
  required: {
    'no certificate': { http: 401, code: 'CLIENT_CERTIFICATE_REQUIRED', flight: status.UNAVAILABLE /* refused at the TLS handshake */ },
    valid: { http: 200, flight: status.OK },
    'foreign CA': { http: 401, code: 'CLIENT_CERTIFICATE_INVALID', flight: status.UNAVAILABLE },
    expired: { http: 401, code: 'CLIENT_CERTIFICATE_INVALID', flight: status.UNAVAILABLE },
  },
};

let pki: TestPki;
test.before(() => {
  pki = createTestPki();
});
test.after.always(() => pki?.remove());

function clientTls(presented: Presented): ClientTls {
  const certificate = { valid: pki.client, 'foreign CA': pki.foreignClient, expired: pki.expiredClient, 'no certificate': undefined }[presented];
  return { ca: pki.ca.cert, cert: certificate?.cert, key: certificate?.key };
}

function tlsRuntime(mode: Mode, options: { keys?: boolean } = {}) {
  const ca = mode === 'none' ? '' : `\n    client_auth_ca_file: ${pki.ca.certFile}`;
  const runtime = `
  tls:
    enabled: true
    certificate_file: ${pki.server.certFile}
    key_file: ${pki.server.keyFile}
    client_auth_mode: ${mode}${ca}`;
  return { manifest: accessManifest({ keys: options.keys ?? false, runtime }), files: ACCESS_FILES };
}

/** Records who each admitted request turned out to be (runs after every auth tap). */
function principalSpy(seen: Principal[]): QuarryPlugin {
  return {
    name: 'principal-spy',
    apply(runtime) {
      runtime.hooks.auth.tap({ name: 'principal-spy', stage: STAGE.OBSERVE_LAST }, (request) => {
        seen.push(request.principal);
        return undefined;
      });
    },
  };
}

async function flightStatus(context: TestRuntime, tls: ClientTls, metadata?: Record<string, string>): Promise<number> {
  const client = mutualTlsFlightClient(context.runtime.flightEndpoint, tls);
  try {
    await client.queryInfo('SELECT 1 AS one', metadata);
    return status.OK;
  } catch (error) {
    return (error as { code: number }).code;
  } finally {
    client.close();
  }
}

for (const mode of ['none', 'request', 'required'] as const) {
  test(`client_auth_mode ${mode}: probes, queries and Flight × every client certificate`, async (t) => {
    const seen: Principal[] = [];
    const context = await startRuntime({ ...tlsRuntime(mode), flight: true, bundle: [...defaultPlugins(), principalSpy(seen)] });
    try {
      for (const presented of presentedCases) {
        const tls = clientTls(presented);
        const cell = `${mode} × ${presented}`;
        const want = expected[mode][presented];
        for (const probe of ['/health', '/v1/ready']) {
          t.is((await https(`${context.baseUrl}${probe}`, tls)).status, 200, `${cell}: ${probe} stays reachable`);
        }
        const query = await https(`${context.baseUrl}/v1/sql`, { ...tls, method: 'POST', body: 'SELECT 1 AS one' });
        t.is(query.status, want.http, `${cell}: HTTP query ${query.body}`);
        if (want.code) t.is((JSON.parse(query.body) as { error: { code: string } }).error.code, want.code, cell);
        if (query.status === 200) {
          t.is(seen.at(-1)?.id, mode !== 'none' && presented === 'valid' ? 'cert:CN=client-alice' : 'anonymous', `${cell}: HTTP caller`);
        }
        const before = seen.length;
        t.is(await flightStatus(context, tls), want.flight, `${cell}: Flight`);
        if (want.flight === status.OK) {
          t.is(seen.at(-1)?.id, mode !== 'none' && presented === 'valid' ? 'cert:CN=client-alice' : 'anonymous', `${cell}: Flight caller`);
          t.is(seen.at(-1)?.canWrite, true, `${cell}: a certificate identity may write`);
        } else {
          t.is(seen.length, before, `${cell}: the refused Flight connection never reached admission`);
        }
      }
    } finally {
      await context.runtime.stop();
    }
  });
}

test('with API keys on, a client certificate is an additional requirement, not a replacement', async (t) => {
  const seen: Principal[] = [];
  const context = await startRuntime({ ...tlsRuntime('required', { keys: true }), flight: true, bundle: [...defaultPlugins(), principalSpy(seen)] });
  try {
    const sql = (tls: ClientTls, headers: Record<string, string> = {}) => https(`${context.baseUrl}/v1/sql`, { ...tls, method: 'POST', body: 'SELECT 1', headers });
    const key = { 'x-api-key': KEYS.writer };
    t.is((await sql(clientTls('valid'))).status, 401, 'a certificate alone is not enough');
    t.is(JSON.parse((await sql(clientTls('valid'))).body).error.code, 'API_KEY_MISSING');
    t.is(JSON.parse((await sql(clientTls('no certificate'), key)).body).error.code, 'CLIENT_CERTIFICATE_REQUIRED', 'a key alone is not enough');
    t.is((await sql(clientTls('valid'), key)).status, 200);
    t.regex(seen.at(-1)!.id, /^apikey:[0-9a-f]{12}$/, 'the key names the caller');
    t.is((await https(`${context.baseUrl}/health`, clientTls('no certificate'))).status, 200);
    t.is(await flightStatus(context, clientTls('valid')), status.UNAUTHENTICATED);
    t.is(await flightStatus(context, clientTls('valid'), { authorization: `Bearer ${KEYS.reader}` }), status.OK);
    t.is(seen.at(-1)!.canWrite, false, 'the read-only key decides what the caller may do');
  } finally {
    await context.runtime.stop();
  }
});
