import type { Manifest } from '../manifest/types.js';

const MiB = 1024 * 1024;

/**
 * Message size limits of the Flight listener.
 *
 * With `runtime.flight.max_message_size` set, it is both gRPC limits and the size DoGet
 * splits record batches under. Unset: receive up to 64 MiB per message (a DoPut batch),
 * send without a gRPC limit, but still split outgoing batches at 4 MiB, the receive limit
 * most gRPC clients start with (grpc-go, grpc-java without Flight's own setting).
 */
export interface FlightLimits {
  /** `grpc.max_receive_message_length`. */
  readonly receiveMessageBytes: number;
  /** `grpc.max_send_message_length` (-1: unlimited). */
  readonly sendMessageBytes: number;
  /** No FlightData DoGet sends is larger than this. */
  readonly splitMessageBytes: number;
}

export const DEFAULT_RECEIVE_MESSAGE_BYTES = 64 * MiB;
export const DEFAULT_SPLIT_MESSAGE_BYTES = 4 * MiB;

export function flightLimits(manifest: Manifest): FlightLimits {
  const configured = manifest.runtime.flight.max_message_size;
  if (configured !== undefined) {
    return { receiveMessageBytes: configured, sendMessageBytes: configured, splitMessageBytes: configured };
  }
  return { receiveMessageBytes: DEFAULT_RECEIVE_MESSAGE_BYTES, sendMessageBytes: -1, splitMessageBytes: DEFAULT_SPLIT_MESSAGE_BYTES };
}
