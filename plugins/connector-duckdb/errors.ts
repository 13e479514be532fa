import { defineErrorCodes, GRPC } from '../../core/errors/codes.js';

/** Errors of the duckdb: connector (docs/plugins/connector-duckdb.md). */
defineErrorCodes({
  DUCKDB_PARAMS_INVALID: {
    http: 400,
    grpc: GRPC.INVALID_ARGUMENT,
    description: 'A `duckdb:` dataset\'s `from` or `params` are wrong (unknown key, missing `duckdb_open`, a file that does not exist, a bad table name); the message names the dataset and the key.',
  },
});
