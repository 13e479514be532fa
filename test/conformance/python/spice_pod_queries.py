"""Asks one running pod the queries its author shows, as Spice users' clients do: Python's
http.client on POST /v1/sql (JSON rows, and the text/plain table) and pyarrow Flight in
spicepy's shape (the SQL text as the descriptor's command, the API key as a bearer token).
Each query is one JSON line: {"case", "ok", "error"?}."""

import argparse
import json

import pyarrow.flight as flight

from case_runner import run_cases
from sql_over_http import post_sql

PARSER = argparse.ArgumentParser()
PARSER.add_argument("--base", required=True)
PARSER.add_argument("--flight", required=True)
PARSER.add_argument("--queries", required=True, help='JSON: [{"name", "sql", "rows"}]')
ARGS = PARSER.parse_args()


def http_rows(sql):
    status, body = post_sql(ARGS.base, sql)
    assert status == 200, f"HTTP {status}: {body[:500]}"
    return json.loads(body)


def http_table(sql):
    status, body = post_sql(ARGS.base, sql, accept="text/plain")
    assert status == 200, f"HTTP {status}: {body[:500]}"
    return body


def flight_rows(sql):
    client = flight.FlightClient(ARGS.flight)
    try:
        info = client.get_flight_info(flight.FlightDescriptor.for_command(sql))
        return client.do_get(info.endpoints[0].ticket).read_all().to_pylist()
    finally:
        client.close()


def check(query):
    expected = query["rows"]
    assert http_rows(query["sql"]) == expected, f"HTTP JSON: {http_rows(query['sql'])} != {expected}"
    assert flight_rows(query["sql"]) == expected, f"Flight (spicepy shape): {flight_rows(query['sql'])} != {expected}"
    table = http_table(query["sql"])
    lines = table.rstrip("\n").split("\n")
    assert lines[0].startswith("+-") and lines[-1].startswith("+-"), table
    assert len(lines) == len(expected) + 4, f"text/plain table of {len(expected)} rows: {table}"


QUERIES = {query["name"]: query for query in json.loads(ARGS.queries)}

if __name__ == "__main__":
    run_cases(QUERIES, [], check)
