import { defineErrorCodes, GRPC } from '../../core/errors/codes.js';

/** Errors of the s3: connector (docs/plugins/connector-s3.md). */
defineErrorCodes({
  S3_PARAMS_INVALID: {
    http: 400,
    grpc: GRPC.INVALID_ARGUMENT,
    description: 'An `s3:` dataset\'s `from` or `params` are wrong (unknown key, bad s3_auth or file_format, s3_auth: key without s3_key/s3_secret); the message names the dataset, the key and what is accepted.',
  },
  S3_READ_FAILED: {
    http: 502,
    grpc: GRPC.UNAVAILABLE,
    description: 'The bucket could not be listed or an object could not be downloaded (unreachable endpoint, access denied, no such bucket, no data objects under the prefix); the message names the dataset and the S3 error.',
  },
});
