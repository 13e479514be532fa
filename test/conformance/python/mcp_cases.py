"""MCP conformance cases with the official Python MCP SDK's streamable-HTTP client.

Usage: mcp_cases.py --base http://HOST:PORT --key KEY [CASE ...]; prints a JSON line per case.
"""

import asyncio
import http.client
import json
import urllib.parse

from case_runner import base_and_key_arguments, run_cases

from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

ARGS = None
FAILING_QUERY = "SELECT CASE WHEN i = {at} THEN error('boom at {at}') ELSE i END AS v FROM range({rows}) t(i)"
ENGINE_LOST_ITS_MESSAGE = "the engine kept only that it stopped the query"
TOOLS = {"sql", "list_datasets", "table_schema", "sample_rows", "get_readiness"}


def url():
    return f"{ARGS.base}/v1/mcp"


def connect(mode="legacy", key=None):
    headers = {"X-API-Key": key if key is not None else ARGS.key}
    return Client(streamable_http_client(url(), http_client=create_mcp_http_client(headers=headers)), mode=mode)


def text_of(result):
    assert result.content and result.content[0].type == "text", result
    return result.content[0].text


async def case_initialize_and_list_tools():
    async with connect() as client:
        assert client.server_info.name, client.server_info
        assert client.protocol_version in ("2025-06-18", "2025-03-26", "2024-11-05", "2025-11-25"), client.protocol_version
        tools = await client.list_tools()
        names = {tool.name for tool in tools.tools}
        assert TOOLS <= names, names
        sql_tool = next(tool for tool in tools.tools if tool.name == "sql")
        assert "query" in sql_tool.input_schema["properties"], sql_tool.input_schema


async def case_each_tool_answers():
    async with connect() as client:
        rows = json.loads(text_of(await client.call_tool("sql", {"query": "SELECT 40 + 2 AS answer"})))
        assert rows == [{"answer": 42}], rows
        datasets = text_of(await client.call_tool("list_datasets", {}))
        assert "events" in datasets, datasets
        schema = json.loads(text_of(await client.call_tool("table_schema", {"tables": ["events"]})))
        columns = {column["name"]: column for column in schema[0]["columns"]}
        assert columns["label"].get("description") == "What happened, in words", schema
        assert "description" not in columns["id"], schema
        sample = text_of(await client.call_tool("sample_rows", {"dataset": "events", "limit": 1}))
        assert len(json.loads(sample)) == 1, sample
        readiness = text_of(await client.call_tool("get_readiness", {}))
        assert "ready" in readiness.lower(), readiness


async def case_sql_tool_reports_failures_as_tool_errors():
    async with connect() as client:
        for at, rows in [(0, 10), (150000, 300000), (1000000, 2000000)]:
            result = await client.call_tool("sql", {"query": FAILING_QUERY.format(at=at, rows=rows)})
            assert result.is_error, f"error at row {at}: the tool answered as if it succeeded"
            text = text_of(result)
            assert f"boom at {at}" in text or ENGINE_LOST_ITS_MESSAGE in text, text
            assert "QUERY_CANCELLED" not in text and "the query was cancelled" not in text, text
        write = await client.call_tool("sql", {"query": "INSERT INTO events VALUES (77, 'x')"})
        assert write.is_error and "WRITE_NOT_ALLOWED" in text_of(write), text_of(write)


SANDBOX_REFUSALS = [
    ("EXPLAIN ANALYZE DROP TABLE events", "WRITE_NOT_ALLOWED", "the MCP sql tool only reads"),
    ("EXPLAIN ANALYZE DELETE FROM events", "WRITE_NOT_ALLOWED", "the MCP sql tool only reads"),
    ("SELECT * FROM enable_logging(level='debug', storage='file', storage_path='logs')", "STATEMENT_NOT_ALLOWED", "enable_logging() is not allowed"),
    ("SELECT * FROM checkpoint()", "STATEMENT_NOT_ALLOWED", "checkpoint() is not allowed"),
    ("SELECT * FROM read_blob('.tmp/*')", "ACCESS_DENIED", "dataset files"),
    ("SELECT 1\x00; DROP TABLE events", "SQL_INVALID", "NUL byte at offset 8"),
    ("CREATE SECRET s (TYPE s3, KEY_ID 'a', SECRET 'b')", "STATEMENT_NOT_ALLOWED", "SECRET statements are not accepted"),
    ("INSTALL spatial", "STATEMENT_NOT_ALLOWED", "INSTALL statements are not accepted"),
    ("SELECT * FROM runtime.task_history_shapes", "ACCESS_DENIED", "not readable by user SQL"),
]


async def case_sql_tool_is_sandboxed():
    """The reproductions of the sandbox issue, through the MCP sql tool: each is a tool error with its code, and nothing changed."""
    async with connect() as client:
        before = text_of(await client.call_tool("sql", {"query": "SELECT count(*) AS n FROM events"}))
        for query, code, words in SANDBOX_REFUSALS:
            result = await client.call_tool("sql", {"query": query})
            text = text_of(result)
            assert result.is_error, f"{query}: answered as if it succeeded: {text}"
            assert code in text and words in text, f"{query}: {text}"
        after = text_of(await client.call_tool("sql", {"query": "SELECT count(*) AS n FROM events"}))
        assert before == after, (before, after)
        # Task history shows this key its own queries only (rows are written in the background: how many is not asserted).
        seen = json.loads(text_of(await client.call_tool("sql", {"query": "SELECT count(DISTINCT labels['principal']) AS principals FROM runtime.task_history WHERE task = 'sql_query'"})))
        assert seen[0]["principals"] <= 1, seen


def raw_post(body, headers):
    base = urllib.parse.urlsplit(ARGS.base)
    connection = http.client.HTTPConnection(base.hostname, base.port, timeout=60)
    connection.request("POST", "/v1/mcp", body=json.dumps(body).encode(), headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, {name.lower(): value for name, value in response.getheaders()}, data


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


async def case_sessions_are_issued_and_end():
    status, headers, _ = raw_post(INITIALIZE, {**JSON_HEADERS, "X-API-Key": ARGS.key})
    assert status == 200, status
    session = headers.get("mcp-session-id")
    assert session, headers
    base = urllib.parse.urlsplit(ARGS.base)
    connection = http.client.HTTPConnection(base.hostname, base.port, timeout=30)
    connection.request("DELETE", "/v1/mcp", headers={"Mcp-Session-Id": session, "X-API-Key": ARGS.key, "MCP-Protocol-Version": "2025-06-18"})
    deleted = connection.getresponse()
    deleted.read()
    connection.close()
    assert deleted.status in (200, 204), deleted.status
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
    status, _, _ = raw_post(listing, {**JSON_HEADERS, "X-API-Key": ARGS.key, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"})
    assert status == 404, f"a request on an ended session answered {status}"


async def case_auth_is_required():
    status, _, body = raw_post(INITIALIZE, JSON_HEADERS)
    assert status == 401, (status, body)
    status, _, body = raw_post(INITIALIZE, {**JSON_HEADERS, "X-API-Key": "wrong"})
    assert status == 401, (status, body)
    try:
        async with connect(key="wrong") as client:
            await client.list_tools()
    except Exception:  # the SDK reports the 401 as an error of the connect ("Server returned an error response")
        pass
    else:
        raise AssertionError("a wrong key connected")


async def case_host_header_is_checked():
    status, _, body = raw_post(INITIALIZE, {**JSON_HEADERS, "X-API-Key": ARGS.key, "Host": "evil.example:8090"})
    assert status == 403 and b"MCP_HOST_FORBIDDEN" in body, (status, body)


async def case_a_current_client_connects_in_auto_mode():
    # The SDK's default: a server/discover probe at its newest revision (2026-07-28), then that
    # revision's stateless requests: no initialize, no session.
    async with connect(mode="auto") as client:
        assert client.protocol_version == "2026-07-28", client.protocol_version
        assert client.server_info is not None and client.server_info.name == "quarry", client.server_info
        tools = await client.list_tools()
        assert TOOLS <= {tool.name for tool in tools.tools}
        rows = json.loads(text_of(await client.call_tool("sql", {"query": "SELECT 1 AS one"})))
        assert rows == [{"one": 1}], rows


async def case_the_2026_07_28_revision_pinned():
    async with connect(mode="2026-07-28") as client:
        assert client.protocol_version == "2026-07-28"
        result = await client.call_tool("sql", {"query": FAILING_QUERY.format(at=1000000, rows=2000000)})
        assert result.is_error, "a failing query over the stateless revision"
        write = await client.call_tool("sql", {"query": "DELETE FROM events"})
        assert write.is_error, text_of(write)
    # The revision's requests need the caller's key like any other.
    try:
        async with connect(mode="2026-07-28", key="wrong") as client:
            await client.list_tools()
    except Exception:
        pass
    else:
        raise AssertionError("a wrong key was served over the stateless revision")


async def case_an_unknown_revision_gets_the_supported_list():
    probe = {"jsonrpc": "2.0", "id": 9, "method": "server/discover", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01"}}}
    status, _, body = raw_post(probe, {**JSON_HEADERS, "X-API-Key": ARGS.key, "MCP-Protocol-Version": "2099-01-01"})
    answer = json.loads(body)
    assert status == 400 and answer["error"]["code"] == -32022, (status, answer)
    assert "2026-07-28" in answer["error"]["data"]["supported"] and "2025-06-18" in answer["error"]["data"]["supported"], answer
    assert answer["error"]["data"]["requested"] == "2099-01-01"
    listing = {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}
    status, _, body = raw_post(listing, {**JSON_HEADERS, "X-API-Key": ARGS.key, "MCP-Protocol-Version": "2099-01-01"})
    assert status == 400 and json.loads(body)["error"]["code"] == -32022, (status, body)


CASES = {name[len("case_"):]: function for name, function in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    ARGS = base_and_key_arguments()
    run_cases(CASES, ARGS.cases, lambda case: asyncio.run(case()))
