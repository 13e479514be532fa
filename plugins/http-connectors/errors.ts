import { defineErrorCodes, GRPC } from '../../core/errors/codes.js';

/** Errors of the HTTP-family connectors, registered when the plugin module loads (docs/errors.md lists them). */
defineErrorCodes({
  HTTP_SOURCE_PARAM_INVALID: {
    http: 400,
    grpc: GRPC.INVALID_ARGUMENT,
    description: 'A dataset served by the https, graphql or github connector has a `from:` or a param the connector cannot use; the message names the dataset, the key and what is accepted.',
  },
  UPSTREAM_RESPONSE_INVALID: {
    http: 502,
    grpc: GRPC.UNAVAILABLE,
    description: 'An upstream answered 2xx but not with what the connector expects (not JSON, GraphQL `errors`, no array at `json_pointer`, a pagination cursor that does not advance); the refresh fails and the previous data stays.',
  },
});
