"""Sends statements to a runtime over HTTP (http.client) and Flight SQL (grpcio), and reports each answer.

Nothing of Quarry's own client code is used. HTTP: `POST /v1/sql` with `X-API-Key`. Flight:
GetFlightInfo with a CommandStatementQuery (the message compiled from Arrow's FlightSql.proto,
packed in google.protobuf.Any), then DoGet of every endpoint, read to the end, over a plain
grpcio channel so that the trailing metadata (`x-quarry-error-code`) of a refusal can be read.

Usage: sandbox_fuzz.py --generated DIR --http HOST:PORT --flight HOST:PORT --key KEY
       --statements FILE
FILE holds a JSON list of SQL texts. Prints one JSON line per statement:
{"index": N, "http": [STATUS, CODE], "flight": [GRPC_STATUS, CODE]}; CODE is the error code
of a refusal or failure ("" for a success). A transport failure (the connection refused or
reset: the runtime is gone) is reported as status 0 / "TRANSPORT".
"""

import argparse
import http.client
import json
import sys
import threading

import grpc

ARGS = None


def http_answer(connection_holder, text):
    """(status, code) of `POST /v1/sql`; reconnects once if the kept-alive connection was closed."""
    for attempt in range(2):
        try:
            if connection_holder[0] is None:
                connection_holder[0] = http.client.HTTPConnection(ARGS.http, timeout=60)
            connection = connection_holder[0]
            connection.request("POST", "/v1/sql", body=text.encode("utf-8"), headers={"X-API-Key": ARGS.key, "Content-Type": "text/plain"})
            response = connection.getresponse()
            body = response.read()
            if response.status == 200:
                return [200, ""]
            try:
                code = json.loads(body)["error"]["code"]
            except (ValueError, KeyError, TypeError):
                code = "UNPARSEABLE:" + body[:200].decode("utf-8", "replace")
            return [response.status, code]
        except (http.client.HTTPException, OSError) as error:
            connection_holder[0] = None
            if attempt == 1:
                return [0, "TRANSPORT:" + type(error).__name__]
    return [0, "TRANSPORT"]


class FlightCalls:
    def __init__(self, generated):
        sys.path.insert(0, generated)
        from arrow.flight.protocol import flight_pb2
        from arrow.flight.protocol.sql import flight_sql_pb2
        from google.protobuf import any_pb2

        self.flight = flight_pb2
        self.sql = flight_sql_pb2
        self.any = any_pb2
        self.channel = grpc.insecure_channel(ARGS.flight)
        service = "/arrow.flight.protocol.FlightService/"
        self.get_flight_info = self.channel.unary_unary(service + "GetFlightInfo", request_serializer=flight_pb2.FlightDescriptor.SerializeToString, response_deserializer=flight_pb2.FlightInfo.FromString)
        self.do_get = self.channel.unary_stream(service + "DoGet", request_serializer=flight_pb2.Ticket.SerializeToString, response_deserializer=flight_pb2.FlightData.FromString)
        self.metadata = [("authorization", "Bearer " + ARGS.key)]

    def answer(self, text):
        holder = self.any.Any()
        holder.Pack(self.sql.CommandStatementQuery(query=text))
        descriptor = self.flight.FlightDescriptor(type=self.flight.FlightDescriptor.CMD, cmd=holder.SerializeToString())
        try:
            info = self.get_flight_info(descriptor, metadata=self.metadata, timeout=60)
            for endpoint in info.endpoint:
                for _ in self.do_get(endpoint.ticket, metadata=self.metadata, timeout=60):
                    pass
            return ["OK", ""]
        except grpc.RpcError as error:
            code = dict(error.trailing_metadata() or ()).get("x-quarry-error-code", "")
            if error.code() == grpc.StatusCode.UNAVAILABLE and code == "":
                return ["UNAVAILABLE", "TRANSPORT"]
            return [error.code().name, code]


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    for name in ("--generated", "--http", "--flight", "--key", "--statements"):
        parser.add_argument(name, required=True)
    ARGS = parser.parse_args()
    with open(ARGS.statements, encoding="utf-8") as file:
        statements = json.load(file)
    flight_calls = FlightCalls(ARGS.generated)
    http_answers = [None] * len(statements)
    flight_answers = [None] * len(statements)

    def over_http():
        connection_holder = [None]
        for index, text in enumerate(statements):
            http_answers[index] = http_answer(connection_holder, text)

    def over_flight():
        for index, text in enumerate(statements):
            flight_answers[index] = flight_calls.answer(text)

    # The doors side by side, each in order: half the time, and the runtime serves both at once.
    threads = [threading.Thread(target=over_http), threading.Thread(target=over_flight)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for index in range(len(statements)):
        print(json.dumps({"index": index, "http": http_answers[index], "flight": flight_answers[index]}), flush=True)


if __name__ == "__main__":
    main()
