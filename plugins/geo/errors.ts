import { GRPC, defineErrorCodes } from '../../core/errors/codes.js';

/** Error codes of the geo plugin; registered when the module loads, so docs/errors.md lists them. */
defineErrorCodes({
  GEO_INVALID_GEOMETRY: {
    http: 400,
    grpc: GRPC.INVALID_ARGUMENT,
    description:
      'An ST_* function got text that is not well-known text (ST_GeomFromText) or bytes that are not well-known binary; the message names the function, the position and what was expected.',
  },
  GEO_INVALID_ARGUMENT: {
    http: 400,
    grpc: GRPC.INVALID_ARGUMENT,
    description: 'An ST_* function got a geometry of the wrong kind (ST_X of a polygon) or an out-of-range number (ST_Buffer with fewer than 1 segment per quadrant).',
  },
  GEO_OPERATION_FAILED: {
    http: 400,
    grpc: GRPC.INVALID_ARGUMENT,
    description: 'The geometry library could not compute an ST_* result (a topology error on invalid input, e.g. a self-intersecting polygon); the message names the function.',
  },
});

export const GEO_CODES = {
  invalidGeometry: 'GEO_INVALID_GEOMETRY',
  invalidArgument: 'GEO_INVALID_ARGUMENT',
  operationFailed: 'GEO_OPERATION_FAILED',
} as const;
