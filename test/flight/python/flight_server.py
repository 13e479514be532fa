"""An Arrow C++ Flight server (pyarrow), for Quarry's own Flight clients to be tried against a
server Quarry did not write. Prints its port, then serves until killed. Tickets:
  rows      200,000 rows (i int64, label string) in batches of 50,000: messages of ~2 MB,
            spread over many HTTP/2 frames;
  refused   PERMISSION_DENIED before any message (a trailers-only response);
  mid       one batch, then an internal error (the status after data).
"""
import pyarrow as pa
import pyarrow.flight as flight

ROWS = 200_000


class Server(flight.FlightServerBase):
    def do_get(self, context, ticket):
        name = ticket.ticket.decode()
        if name == 'rows':
            table = pa.table({'i': pa.array(range(ROWS), pa.int64()), 'label': pa.array([f'label {i}' for i in range(ROWS)])})
            return flight.RecordBatchStream(pa.Table.from_batches(table.to_batches(max_chunksize=50_000)))
        if name == 'refused':
            raise flight.FlightUnauthorizedError('not for you')
        if name == 'mid':
            schema = pa.schema([('i', pa.int64())])

            def batches():
                yield pa.record_batch([pa.array([1, 2, 3], pa.int64())], schema=schema)
                raise flight.FlightInternalError('broke after the first batch')
            return flight.GeneratorStream(schema, batches())
        raise flight.FlightServerError(f'unknown ticket {name}')


server = Server('grpc://127.0.0.1:0')
print(server.port, flush=True)
server.serve()
