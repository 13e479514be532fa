/** How the hmac-auth example signs a request; shared by the plugin and its client (sign-request.ts), and free of Quarry imports. */
import { createHmac } from 'node:crypto';

/**
 * What gets signed: the method (`GRPC` for Flight), the route as Quarry names it (`/v1/sql`;
 * `/v1/datasets/:name/acceleration/refresh` for parameterised routes; the gRPC method path
 * on Flight) and the timestamp. The body is not covered: the auth hook runs before it is read.
 */
export function signingText(method: string, route: string, timestamp: string): string {
  return `${method.toUpperCase()}\n${route}\n${timestamp}`;
}

export function sign(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('hex');
}
