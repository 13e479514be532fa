/**
 * The API-key matrix over Flight SQL: GetFlightInfo, DoGet, DoAction, DoPut and Handshake
 * × every way of sending (or not sending) a key, against one runtime.
 */
import test from 'ava';
import { status } from '@grpc/grpc-js';
import { FlightSqlClient } from '../../core/flight/client/flight-sql-client.js';
import { CommandStatementQuerySchema } from '../../core/flight/generated/arrow/flight/protocol/sql/flight_sql_pb.js';
import { startRuntime, type TestRuntime } from '../helpers/runtime.js';
import { grpcError } from '../flight/flight-helpers.js';
import { ACCESS_FILES, KEYS, accessManifest } from './access-fixtures.js';

type Outcome = 'missing' | 'invalid' | 'writer' | 'reader';
const credentials: Array<{ name: string; headers: Record<string, string>; outcome: Outcome }> = [
  { name: 'no key', headers: {}, outcome: 'missing' },
  { name: 'wrong Bearer', headers: { authorization: 'Bearer not-a-key' }, outcome: 'invalid' },
  { name: 'Bearer', headers: { authorization: `Bearer ${KEYS.writer}` }, outcome: 'writer' },
  { name: 'bearer', headers: { authorization: `bearer ${KEYS.writer}` }, outcome: 'writer' },
  { name: 'BEARER', headers: { authorization: `BEARER ${KEYS.writer}` }, outcome: 'writer' },
  { name: 'x-api-key metadata', headers: { 'x-api-key': KEYS.writer }, outcome: 'writer' },
  { name: 'both, x-api-key wrong', headers: { 'x-api-key': 'not-a-key', authorization: `Bearer ${KEYS.writer}` }, outcome: 'invalid' },
  { name: 'read-only key', headers: { authorization: `Bearer ${KEYS.reader}` }, outcome: 'reader' },
  { name: 'key with an unknown suffix', headers: { authorization: `Bearer ${KEYS.colon}` }, outcome: 'reader' },
];

let context: TestRuntime;
const clients: FlightSqlClient[] = [];
const connect = (headers: Record<string, string>) => {
  const client = FlightSqlClient.connect({ endpoint: `grpc://${context.runtime.flightEndpoint}`, headers });
  clients.push(client);
  return client;
};

test.before(async () => {
  context = await startRuntime({ manifest: accessManifest(), files: ACCESS_FILES, flight: true });
});
test.after.always(async () => {
  for (const client of clients) client.close();
  await context?.runtime.stop();
});

/** The gRPC status a call should end with for a credential; `write` calls need a :rw key. */
function expectedStatus(outcome: Outcome, write: boolean): number {
  if (outcome === 'missing' || outcome === 'invalid') return status.UNAUTHENTICATED;
  if (write && outcome === 'reader') return status.PERMISSION_DENIED;
  return status.OK;
}

async function statusOf(call: Promise<unknown>): Promise<{ code: number; details: string }> {
  try {
    await call;
    return { code: status.OK, details: '' };
  } catch (error) {
    return error as { code: number; details: string };
  }
}

/** A statement ticket made by `headers`' caller (tickets only serve the caller that made them). */
async function ticketFor(headers: Record<string, string>): Promise<Uint8Array> {
  const info = await connect(headers).commandInfo(CommandStatementQuerySchema, { query: 'SELECT 2 AS two' });
  return info.endpoint[0]!.ticket!.ticket;
}

test.serial('GetFlightInfo, DoGet, DoAction and DoPut × every credential', async (t) => {
  for (const credential of credentials) {
    const client = connect(credential.headers);
    const authenticated = credential.outcome === 'writer' || credential.outcome === 'reader';
    const calls: Array<[string, () => Promise<unknown>, boolean]> = [
      ['GetFlightInfo', () => client.commandInfo(CommandStatementQuerySchema, { query: 'SELECT 1 AS one' }), false],
      // Refused callers redeem a writer's ticket: DoGet itself must check the key.
      ['DoGet', async () => client.flight.doGetTable(await ticketFor(authenticated ? credential.headers : { authorization: `Bearer ${KEYS.writer}` })), false],
      ['DoAction (CreatePreparedStatement)', () => client.prepare('SELECT 1 AS one'), false],
      ['DoAction (ListActions)', () => client.flight.listActions(), false],
      ['DoPut (INSERT)', () => client.executeUpdate("INSERT INTO events VALUES (7, 'seven')"), true],
    ];
    for (const [method, call, write] of calls) {
      const result = await statusOf(call());
      t.is(result.code, expectedStatus(credential.outcome, write), `${method} with ${credential.name}: ${result.details}`);
    }
  }
});

test.serial('Handshake: Basic credentials give a bearer token for a valid key only', async (t) => {
  for (const [key, outcome] of [[KEYS.writer, 'writer'], [KEYS.reader, 'reader'], ['not-a-key', 'invalid'], ['', 'missing']] as const) {
    const client = connect({});
    const result = await statusOf(client.handshake('', key));
    const name = `Handshake with ${outcome} key`;
    if (outcome === 'writer' || outcome === 'reader') {
      t.is(result.code, status.OK, `${name}: ${result.details}`);
      t.is(client.flight.token, key, 'the key itself is the bearer token');
      t.is((await client.query('SELECT 3 AS three')).table.numRows, 1, `${name}: later calls carry the token`);
      const write = await statusOf(client.executeUpdate("INSERT INTO events VALUES (8, 'eight')"));
      t.is(write.code, outcome === 'writer' ? status.OK : status.PERMISSION_DENIED, `${name}: DoPut`);
    } else {
      t.is(result.code, status.UNAUTHENTICATED, `${name}: ${result.details}`);
    }
  }
});

test.serial('refusals say what to send, carry WWW-Authenticate, and never the key', async (t) => {
  const missing = await grpcError(connect({}).query('SELECT 1'));
  t.is(missing.code, status.UNAUTHENTICATED);
  t.regex(missing.details, /^Missing API key: .*authorization: Bearer <key>/);
  t.deepEqual(missing.metadata.get('www-authenticate'), ['Bearer']);
  t.deepEqual(missing.metadata.get('x-quarry-error-code'), ['API_KEY_MISSING']);
  const wrong = await grpcError(connect({ authorization: 'Bearer secret-looking-guess' }).query('SELECT 1'));
  t.is(wrong.details, 'Invalid credentials: the API key in the Authorization header is not accepted');
  t.false(JSON.stringify(context.logs).includes('secret-looking-guess'));
});
