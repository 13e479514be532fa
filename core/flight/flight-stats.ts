/**
 * Counters of one Flight listener, for tests and operators: they show that DoGet pulls
 * batches from the engine only as fast as the client reads them.
 */
export class FlightStats {
  /** Record batches taken from query results by DoGet. */
  batchesPulled = 0;
  /** FlightData messages handed to gRPC. */
  messagesSent = 0;
  /** FlightData messages handed to gRPC whose write has not completed yet (bounded per stream). */
  messagesInFlight = 0;
  /** Bytes of FlightData handed to gRPC. */
  bytesSent = 0;
  /** DoGet streams running now. */
  activeStreams = 0;
  /** DoPut streams running now. */
  activeUploads = 0;
}
