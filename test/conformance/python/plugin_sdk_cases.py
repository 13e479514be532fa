"""A runtime running the plugin guide's examples (team-token auth, memory cache, query log,
whoami route), asked by clients Quarry did not write: Python's http.client, pyarrow Flight and
the Python MCP SDK. Usage: plugin_sdk_cases.py --base URL --flight URI --blue TOKEN --green TOKEN
--log FILE [CASE ...]; prints a JSON line per case."""

import argparse
import asyncio
import http.client
import json
import time
import urllib.parse

import pyarrow.flight as flight
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from case_runner import run_cases

PARSER = argparse.ArgumentParser()
for name in ("--base", "--flight", "--blue", "--green", "--log"):
    PARSER.add_argument(name, required=True)
PARSER.add_argument("cases", nargs="*")
ARGS = PARSER.parse_args()
BASE = urllib.parse.urlparse(ARGS.base)
COUNT = "SELECT count(*) AS n FROM orders"


def http_call(method, path, token=None, body=None):
    client = http.client.HTTPConnection(BASE.hostname, BASE.port, timeout=60)
    try:
        headers = {"Accept": "application/json"}
        if token is not None:
            headers["X-Team-Token"] = token
        client.request(method, path, body=None if body is None else body.encode(), headers=headers)
        response = client.getresponse()
        return response.status, json.loads(response.read().decode() or "null")
    finally:
        client.close()


def expect_refusal(status, body, http_status, code, words):
    assert status == http_status, (status, body)
    assert body["error"]["code"] == code, body
    assert words in body["error"]["message"], body


def case_http_refusals():
    expect_refusal(*http_call("POST", "/v1/sql", body=COUNT), 401, "TEAM_TOKEN_MISSING", "send X-Team-Token")
    expect_refusal(*http_call("POST", "/v1/sql", token="not-a-team-token-at-all", body=COUNT), 401, "TEAM_TOKEN_INVALID", "not one this runtime knows")
    client = http.client.HTTPConnection(BASE.hostname, BASE.port, timeout=60)
    client.request("GET", "/v1/ready")
    assert client.getresponse().status == 200, "probes stay public under a custom auth scheme"
    client.close()


def case_http_answers_and_route():
    status, body = http_call("POST", "/v1/sql", token=ARGS.blue, body=COUNT)
    assert status == 200 and body[0]["n"] > 0, (status, body)
    status, body = http_call("GET", "/v1/whoami", token=ARGS.green)
    assert (status, body) == (200, {"id": "team:green", "method": "team-token", "can_write": False}), (status, body)
    expect_refusal(*http_call("GET", "/v1/whoami"), 401, "TEAM_TOKEN_MISSING", "send X-Team-Token")


def case_read_only_team_cannot_write():
    status, body = http_call("POST", "/v1/sql", token=ARGS.green, body="CREATE TABLE graffiti AS SELECT 1 AS x")
    expect_refusal(status, body, 403, "WRITE_NOT_ALLOWED", "ask for a team token with can_write: true")
    assert ":rw" not in body["error"]["message"], body


def flight_options(token):
    return flight.FlightCallOptions(headers=[] if token is None else [(b"x-team-token", token.encode())])


def flight_rows(sql, token):
    client = flight.FlightClient(ARGS.flight)
    try:
        options = flight_options(token)
        info = client.get_flight_info(flight.FlightDescriptor.for_command(sql), options)
        return client.do_get(info.endpoints[0].ticket, options).read_all().to_pylist()
    finally:
        client.close()


def case_flight_refusals():
    for token, words in ((None, "send X-Team-Token"), ("not-a-team-token-at-all", "not one this runtime knows")):
        try:
            flight_rows(COUNT, token)
        except flight.FlightUnauthenticatedError as error:
            assert words in str(error), error
        else:
            raise AssertionError(f"Flight answered without a valid team token ({token})")


def case_flight_answers():
    rows = flight_rows(COUNT, ARGS.blue)
    assert rows[0]["n"] > 0, rows


def mcp_client(token):
    headers = {} if token is None else {"X-Team-Token": token}
    return Client(streamable_http_client(f"{ARGS.base}/v1/mcp", http_client=create_mcp_http_client(headers=headers)), mode="legacy")


async def mcp_sql(token, sql):
    async with mcp_client(token) as client:
        result = await client.call_tool("sql", {"query": sql})
        assert not result.is_error, result
        return json.loads(result.content[0].text)


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "plugin-sdk-cases", "version": "1"}}}


def case_mcp_refusal():
    # What the SDK's transport sends first, sent by hand to read the status and body it hides.
    client = http.client.HTTPConnection(BASE.hostname, BASE.port, timeout=60)
    client.request("POST", "/v1/mcp", body=json.dumps(INITIALIZE).encode(), headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    response = client.getresponse()
    expect_refusal(response.status, json.loads(response.read().decode()), 401, "TEAM_TOKEN_MISSING", "send X-Team-Token")
    client.close()
    try:
        asyncio.run(mcp_sql(None, COUNT))
    except BaseException:  # the SDK reports the 401 as an error of the connect ("Server returned an error response")
        pass
    else:
        raise AssertionError("MCP answered without a team token")


def case_mcp_answers():
    rows = asyncio.run(mcp_sql(ARGS.blue, COUNT))
    assert rows[0]["n"] > 0, rows


def logged(sql):
    """The query log's lines for one statement text, waiting for the plugin's appends."""
    deadline = time.monotonic() + 30
    while True:
        try:
            with open(ARGS.log) as lines:
                found = [entry for entry in map(json.loads, lines) if entry["sql"] == sql]
        except FileNotFoundError:
            found = []
        if len(found) >= 2 or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def case_memory_cache_serves_every_door():
    asks = {
        "http": lambda sql: http_call("POST", "/v1/sql", token=ARGS.blue, body=sql)[1],
        "flight": lambda sql: flight_rows(sql, ARGS.blue),
        "mcp": lambda sql: asyncio.run(mcp_sql(ARGS.blue, sql)),
    }
    for door, ask in asks.items():
        sql = f"SELECT count(*) AS n, '{door}' AS door FROM orders"
        first, second = ask(sql), ask(sql)
        assert first == second and first[0]["n"] > 0, (door, first, second)
        entries = logged(sql)
        assert [entry["protocol"] for entry in entries] == [door, door], entries
        assert [entry["cache"] for entry in entries] == ["MISS", "HIT"], (door, entries)
        assert entries[0]["caller"] == "team:blue", entries


CASES = {name[len("case_"):]: function for name, function in globals().items() if name.startswith("case_")}
run_cases(CASES, ARGS.cases, lambda function: function())
