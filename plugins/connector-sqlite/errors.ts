import { defineErrorCodes, GRPC } from '../../core/errors/codes.js';

/** Errors of the sqlite: connector (docs/plugins/connector-sqlite.md). */
defineErrorCodes({
  SQLITE_PARAMS_INVALID: {
    http: 400,
    grpc: GRPC.INVALID_ARGUMENT,
    description: 'A `sqlite:` dataset\'s `from` or `params` are wrong (unknown key, missing `sqlite_file`, bad table name); the message names the dataset, the key and what is accepted.',
  },
  SQLITE_READ_FAILED: {
    http: 502,
    grpc: GRPC.UNAVAILABLE,
    description: 'The SQLite file could not be opened or read (missing file, not a database, no such table); the message names the dataset and the file.',
  },
});
