import { defineErrorCodes, GRPC } from '../../core/errors/codes.js';

/** Errors of the results cache, registered when the plugin module loads (docs/errors.md lists them). */
defineErrorCodes({
  CACHE_KEY_INVALID: {
    http: 400,
    grpc: GRPC.INVALID_ARGUMENT,
    description: 'The Quarry-Cache-Key (or Spice-Cache-Key) request header is not 1 to 128 characters of A-Z, a-z, 0-9, `_` and `-`.',
  },
});
