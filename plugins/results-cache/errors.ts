import { defineErrorCodes, GRPC } from '../../core/errors/codes.js';

/** Errors of the results cache, registered when the plugin module loads (docs/errors.md lists them). */
defineErrorCodes({
  CACHE_KEY_INVALID: {
    http: 400,
    grpc: GRPC.INVALID_ARGUMENT,
    description: 'The Quarry-Cache-Key (or Spice-Cache-Key) request header is not 1 to 128 characters of A-Z, a-z, 0-9, `_` and `-`.',
  },
  CACHE_CONTROL_INVALID: {
    http: 400,
    grpc: GRPC.INVALID_ARGUMENT,
    description: 'A Cache-Control request directive the results cache reads (max-age, max-stale, min-fresh) has a value that is not a whole number of seconds.',
  },
  CACHE_ONLY_IF_CACHED_MISS: {
    http: 504,
    grpc: GRPC.FAILED_PRECONDITION,
    description: 'The request said `Cache-Control: only-if-cached` and the results cache holds no usable entry for the query; nothing was executed.',
  },
});
