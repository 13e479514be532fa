"""What a Spice user lists, asked with clients Quarry did not write: `SHOW TABLES` over Python's
http.client (Spice's shape: table_catalog, table_schema, table_name, table_type), the Flight
SQL catalog commands over pyarrow (packed from Arrow's FlightSql.proto messages), and the MCP
list_datasets tool over the Python MCP SDK. Every name a listing gives must answer a query.

Usage: spice_catalog_cases.py --base URL --flight grpc://HOST:PORT --generated DIR
       --dataset NAME --view NAME [CASE ...]; prints one JSON line per case.
"""

import argparse
import asyncio
import json
import sys

import pyarrow.flight as flight

from case_runner import run_cases
from sql_over_http import post_sql

ARGS = None
sql = None  # the generated flight_sql_pb2 module


def http_rows(text):
    status, body = post_sql(ARGS.base, text)
    assert status == 200, f"{text}: HTTP {status}: {body[:500]}"
    return json.loads(body)


def quoted(*parts):
    return ".".join('"' + part.replace('"', '""') + '"' for part in parts)


def flight_metadata(message):
    from google.protobuf import any_pb2

    holder = any_pb2.Any()
    holder.Pack(message)
    client = flight.FlightClient(ARGS.flight)
    try:
        info = client.get_flight_info(flight.FlightDescriptor.for_command(holder.SerializeToString()))
        return client.do_get(info.endpoints[0].ticket).read_all().to_pylist()
    finally:
        client.close()


def case_show_tables_has_spices_shape_and_every_name_answers():
    rows = http_rows("SHOW TABLES")
    assert rows and list(rows[0].keys()) == ["table_catalog", "table_schema", "table_name", "table_type"], rows[:1]
    listed = {(row["table_catalog"], row["table_schema"], row["table_name"]): row["table_type"] for row in rows}
    for name in (ARGS.dataset, ARGS.view):
        assert ("spice", "public", name) in listed, (name, sorted(listed))
    assert listed.get(("memory", "main", ARGS.view)) == "VIEW", sorted(listed)
    assert ("spice", "runtime", "task_history") in listed, sorted(listed)
    for catalog, schema, table in listed:
        assert not catalog.startswith("quarry_") and catalog not in ("system", "temp"), catalog
        assert schema not in ("information_schema", "pg_catalog"), schema
        http_rows(f"SELECT count(*) AS n FROM {quoted(catalog, schema, table)}")
    # Spice's REPL habit, with a semicolon and in lower case.
    assert http_rows("show tables;") == rows


def case_flight_catalogs_list_what_queries_can_name():
    catalogs = [row["catalog_name"] for row in flight_metadata(sql.CommandGetCatalogs())]
    assert catalogs[0] == "memory" and "spice" in catalogs, catalogs
    schemas = {(row["catalog_name"], row["db_schema_name"]) for row in flight_metadata(sql.CommandGetDbSchemas(catalog="spice"))}
    assert schemas == {("spice", "public"), ("spice", "runtime")}, schemas
    tables = flight_metadata(sql.CommandGetTables(catalog="spice", db_schema_filter_pattern="public"))
    names = {row["table_name"] for row in tables}
    assert {ARGS.dataset, ARGS.view} <= names, names
    views = flight_metadata(sql.CommandGetTables(table_types=["VIEW"], table_name_filter_pattern=ARGS.view))
    assert {(row["catalog_name"], row["db_schema_name"]) for row in views} == {("memory", "main"), ("spice", "public")}, views
    every = flight_metadata(sql.CommandGetTables())
    assert every, every
    client = flight.FlightClient(ARGS.flight)
    try:
        for row in every:
            text = f"SELECT count(*) AS n FROM {quoted(row['catalog_name'], row['db_schema_name'], row['table_name'])}"
            info = client.get_flight_info(flight.FlightDescriptor.for_command(text))
            client.do_get(info.endpoints[0].ticket).read_all()
    finally:
        client.close()


def case_mcp_list_datasets_lists_the_views():
    from mcp.client.client import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def run():
        async with Client(streamable_http_client(f"{ARGS.base}/v1/mcp", http_client=create_mcp_http_client()), mode="legacy") as client:
            listed = json.loads((await client.call_tool("list_datasets", {})).content[0].text)
            by_name = {entry["name"]: entry for entry in listed}
            assert by_name[ARGS.dataset]["kind"] == "dataset", listed
            view = by_name[ARGS.view]
            assert view["kind"] == "view" and view["state"] == "ready" and view["columns"] >= 1, view
            schema = json.loads((await client.call_tool("table_schema", {"tables": [ARGS.view]})).content[0].text)
            assert schema[0]["table"] == ARGS.view and schema[0]["columns"], schema

    asyncio.run(run())


CASES = {name[len("case_"):]: function for name, function in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--flight", required=True)
    parser.add_argument("--generated", required=True)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--view", required=True)
    parser.add_argument("cases", nargs="*")
    ARGS = parser.parse_args()
    sys.path.insert(0, ARGS.generated)
    from arrow.flight.protocol.sql import flight_sql_pb2

    sql = flight_sql_pb2
    run_cases(CASES, ARGS.cases, lambda case: case())
