import { GRPC, defineErrorCodes } from '../../core/errors/codes.js';

/** Error codes of the functions plugin; registered when the module loads, so docs/errors.md lists them. */
defineErrorCodes({
  FUNCTION_REGISTRATION_FAILED: {
    http: 500,
    grpc: GRPC.INTERNAL,
    description:
      'A `functions:` entry could not be registered at start-up (the SQL body does not parse or bind, body_ref cannot be read, a remote endpoint is outside allowed_endpoint_ranges, bad params); the message names the function.',
  },
  FUNCTION_CALL_FAILED: {
    http: 502,
    grpc: GRPC.UNAVAILABLE,
    description:
      'A remote function or a tool called from SQL failed during a query: its endpoint answered an error status, no answer in time, an answer that is not JSON, too large, or with the wrong number of values; the message names the function and the endpoint.',
  },
});
