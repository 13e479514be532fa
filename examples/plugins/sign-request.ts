/**
 * A client for the hmac-auth example: signs one SQL query and sends it.
 *   HMAC_REPORTING_SECRET=... node --import tsx examples/plugins/sign-request.ts "SELECT count(*) FROM orders"
 */
import { sign, signingText } from './hmac-signing.js';

/** The three headers a signed request carries. */
export function signedHeaders(client: string, secret: string, method: string, route: string, now = Date.now()): Record<string, string> {
  const timestamp = String(Math.floor(now / 1000));
  return {
    'x-quarry-client': client,
    'x-quarry-timestamp': timestamp,
    'x-quarry-signature': sign(secret, signingText(method, route, timestamp)),
  };
}

if (process.argv[1]?.endsWith('sign-request.ts')) {
  const secret = process.env['HMAC_REPORTING_SECRET'];
  if (!secret) throw new Error('set HMAC_REPORTING_SECRET to the secret configured for the "reporting" client');
  const endpoint = process.env['QUARRY_ENDPOINT'] ?? 'http://127.0.0.1:8090';
  const response = await fetch(`${endpoint}/v1/sql`, {
    method: 'POST',
    body: process.argv[2] ?? 'SELECT 1',
    headers: signedHeaders('reporting', secret, 'POST', '/v1/sql'),
  });
  console.log(response.status, await response.text());
}
