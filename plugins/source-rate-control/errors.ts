import { defineErrorCodes, GRPC } from '../../core/errors/codes.js';

/** Errors of source rate control, registered when the plugin module loads (docs/errors.md lists them). */
defineErrorCodes({
  RATE_CONTROL_PARAM_INVALID: {
    http: 400,
    grpc: GRPC.INVALID_ARGUMENT,
    description: 'A per-dataset rate-control param (`max_concurrent_requests`, `requests_per_second_limit`, `requests_per_minute_limit`, `rate_control_jitter_min`/`_max`) is not valid; the message names the dataset, the key and what is accepted.',
  },
  RATE_CONTROL_WAIT_CANCELLED: {
    http: 503,
    grpc: GRPC.CANCELLED,
    description: 'An upstream request was cancelled (load timeout, shutdown) while it waited for a rate-control permit.',
  },
});
