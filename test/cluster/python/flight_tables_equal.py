"""Reads each query (JSON list on stdin) over Flight SQL from two servers with pyarrow (Arrow
C++ Flight) and prints one JSON line per query: whether the two tables are equal, schema
(names, types, field metadata) and values, and the row count. Used by
test/cluster/cluster-pushdown.test.ts: a scheduler's merged answer against a single node's."""
import json
import sys

import pyarrow.flight as flight


def varint(number):
    out = bytearray()
    while True:
        low = number & 0x7F
        number >>= 7
        out.append(low | (0x80 if number else 0))
        if not number:
            return bytes(out)


def length_delimited(field, payload):
    return bytes([field << 3 | 2]) + varint(len(payload)) + payload


def statement_ticket(query):
    """CommandStatementQuery packed in google.protobuf.Any: a ticket Quarry redeems straight."""
    command = length_delimited(1, query.encode())
    return flight.Ticket(length_delimited(1, b"type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery") + length_delimited(2, command))


def main():
    first, second = (flight.FlightClient(endpoint) for endpoint in sys.argv[1:3])
    for query in json.load(sys.stdin):
        left = first.do_get(statement_ticket(query)).read_all()
        right = second.do_get(statement_ticket(query)).read_all()
        equal = left.equals(right, check_metadata=True)
        print(json.dumps({"query": query, "equal": equal, "rows": left.num_rows, "left": str(left.schema) if not equal else "", "right": str(right.schema) if not equal else ""}), flush=True)


if __name__ == "__main__":
    main()
