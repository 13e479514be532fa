import { GRPC, defineErrorCodes } from '../../core/errors/codes.js';

/** Error codes of the client-cert plugin; registered when the module loads, so docs/errors.md lists them. */
defineErrorCodes({
  CLIENT_CERTIFICATE_REQUIRED: {
    http: 401,
    grpc: GRPC.UNAUTHENTICATED,
    description: 'runtime.tls.client_auth_mode is `required` and the connection presented no client certificate that verifies against the configured CA (`/health` and `/v1/ready` stay open).',
  },
  CLIENT_CERTIFICATE_INVALID: {
    http: 401,
    grpc: GRPC.UNAUTHENTICATED,
    description: 'The connection presented a client certificate that does not verify against runtime.tls.client_auth_ca_file / client_auth_ca (unknown issuer, expired, ...).',
  },
});
