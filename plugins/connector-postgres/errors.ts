import { defineErrorCodes, GRPC } from '../../core/errors/codes.js';

/** Errors of the postgres: connector (docs/plugins/connector-postgres.md). */
defineErrorCodes({
  POSTGRES_PARAMS_INVALID: {
    http: 400,
    grpc: GRPC.INVALID_ARGUMENT,
    description: 'A `postgres:` dataset\'s `from` or `params` are wrong (unknown key, bad port or sslmode, no host or connection string); the message names the dataset, the key and what is accepted.',
  },
  POSTGRES_READ_FAILED: {
    http: 502,
    grpc: GRPC.UNAVAILABLE,
    description: 'The PostgreSQL server could not be reached or refused the read (connection refused, authentication, no such table, a value that does not fit its column); the message names the dataset and the server\'s error.',
  },
});
