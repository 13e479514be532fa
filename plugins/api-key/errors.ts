import { GRPC, defineErrorCodes } from '../../core/errors/codes.js';

/** Error codes of the api-key plugin; registered when the module loads, so docs/errors.md lists them. */
defineErrorCodes({
  API_KEY_MISSING: {
    http: 401,
    grpc: GRPC.UNAUTHENTICATED,
    description: 'API keys are enabled and the request carried none: send `X-API-Key: <key>` or `Authorization: Bearer <key>` (Flight: `authorization: Bearer <key>` metadata, or a Handshake with Basic credentials).',
  },
  API_KEY_INVALID: {
    http: 401,
    grpc: GRPC.UNAUTHENTICATED,
    description: 'The API key sent is not one of runtime.auth.api-key.keys (or the `Authorization` header is not `Bearer <key>`).',
  },
});
