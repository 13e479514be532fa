import * as grpc from '@grpc/grpc-js';

/** A gRPC status other than OK, shaped as grpc-js reports one (code, details, trailers as `metadata`). */
export class GrpcStatusError extends Error {
  readonly code: grpc.status;
  readonly details: string;
  readonly metadata: grpc.Metadata;

  constructor(code: grpc.status, details: string, metadata = new grpc.Metadata()) {
    super(`${code} ${grpc.status[code] ?? 'UNKNOWN'}: ${details}`);
    this.name = 'GrpcStatusError';
    this.code = code;
    this.details = details;
    this.metadata = metadata;
  }
}
