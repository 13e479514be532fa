"""Search conformance cases: Python's http.client for POST /v1/search and /v1/sql, the official
Python MCP SDK for the search tool, and hostile statements against the search state.

Usage: search_cases.py --base http://HOST:PORT --key KEY --writer-key KEY [CASE ...]
"""

import argparse
import asyncio
import http.client
import json
import urllib.parse

from case_runner import run_cases

from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

ARGS = None
REQUEST = {"text": "kitten", "datasets": ["notes"], "limit": 2, "additional_columns": ["title"]}


def post(path, body, key=None, content_type="application/json", extra_headers=None):
    base = urllib.parse.urlsplit(ARGS.base)
    connection = http.client.HTTPConnection(base.hostname, base.port, timeout=60)
    headers = {"Content-Type": content_type, **({"X-API-Key": key} if key else {}), **(extra_headers or {})}
    connection.request("POST", path, body=body.encode() if isinstance(body, str) else json.dumps(body).encode(), headers=headers)
    response = connection.getresponse()
    payload = response.read()
    connection.close()
    return response.status, {name.lower(): value for name, value in response.getheaders()}, payload


def sql(text, key=None):
    status, _, payload = post("/v1/sql", text, key or ARGS.key, "text/plain")
    return status, json.loads(payload) if payload else None


def case_search_over_http():
    status, headers, payload = post("/v1/search", REQUEST, ARGS.key)
    assert status == 200, (status, payload)
    answer = json.loads(payload)
    assert set(answer) == {"results", "duration_ms"}, answer
    first = answer["results"][0]
    assert set(first) == {"matches", "dataset", "primary_key", "data", "score", "_score"}, first
    assert first["dataset"] == "notes" and first["primary_key"] == {"id": 1} and first["data"] == {"title": "Pets"}, first
    assert all(isinstance(texts, list) for result in answer["results"] for texts in result["matches"].values()), answer
    assert headers.get("search-results-cache-status") == "MISS", headers
    assert headers.get("search-results-cache-scope") == "user", headers
    status, headers, again = post("/v1/search", REQUEST, ARGS.key)
    assert status == 200 and headers.get("search-results-cache-status") == "HIT", headers
    assert json.loads(again)["results"] == answer["results"]


def case_search_needs_a_key():
    status, _, payload = post("/v1/search", REQUEST)
    assert status == 401, (status, payload)


async def mcp_search():
    headers = {"X-API-Key": ARGS.key}
    async with Client(streamable_http_client(f"{ARGS.base}/v1/mcp", http_client=create_mcp_http_client(headers=headers)), mode="legacy") as client:
        tools = await client.list_tools()
        tool = next((tool for tool in tools.tools if tool.name == "search"), None)
        assert tool is not None, [tool.name for tool in tools.tools]
        properties = tool.input_schema["properties"]
        assert {"text", "datasets", "limit", "where", "additional_columns"} <= set(properties), properties
        assert tool.input_schema.get("required") == ["text"], tool.input_schema
        result = await client.call_tool("search", REQUEST)
        assert not result.is_error, result
        return json.loads(result.content[0].text)


def case_mcp_search_tool_matches_http():
    from_mcp = asyncio.run(mcp_search())
    status, _, payload = post("/v1/search", REQUEST, ARGS.key, extra_headers={"Cache-Control": "no-cache"})
    assert status == 200, payload
    assert from_mcp == json.loads(payload)["results"], (from_mcp, payload)


def case_openai_sdk_creates_embeddings():
    # OpenAI's own Python SDK against POST /v1/embeddings: it asks for base64 unless told otherwise.
    from openai import OpenAI

    client = OpenAI(base_url=f"{ARGS.base}/v1", api_key=ARGS.key, max_retries=0)
    default = client.embeddings.create(model="tiny", input=["a kitten", "a truck"])
    assert [item.index for item in default.data] == [0, 1], default
    assert all(len(item.embedding) == 8 for item in default.data), default
    as_floats = client.embeddings.create(model="tiny", input="a kitten", encoding_format="float")
    assert as_floats.data[0].embedding == default.data[0].embedding, (as_floats, default)
    assert abs(sum(value * value for value in as_floats.data[0].embedding) - 1) < 1e-5
    try:
        client.embeddings.create(model="no-such-model", input="x")
        raise AssertionError("an unknown model was answered")
    except Exception as error:  # the SDK's BadRequestError
        assert getattr(error, "status_code", None) == 400 and "no embeddings model named no-such-model" in str(error), error
    try:
        client.embeddings.create(model="tiny", input="x", dimensions=3)
        raise AssertionError("dimensions the model does not have were answered")
    except Exception as error:
        assert getattr(error, "status_code", None) == 400 and "answers 8 dimensions" in str(error), error


def case_search_functions_in_sql():
    status, rows = sql("SELECT id, title FROM vector_search('notes', 'kitten', 1)")
    assert status == 200 and rows == [{"id": 1, "title": "Pets"}], (status, rows)
    status, rows = sql("SELECT id FROM text_search('notes', 'truck engine', 5)")
    assert status == 200 and rows == [{"id": 2}], (status, rows)


def case_search_text_stays_text():
    before = sql("SELECT count(*) AS n FROM notes")[1]
    hostile = "x'); DROP TABLE notes; --"
    status, _, payload = post("/v1/search", {"text": hostile, "datasets": ["notes"]}, ARGS.writer_key)
    assert status == 200, payload
    status, rows = sql("SELECT * FROM text_search('notes', 'x''); DROP TABLE notes; --', 3)", ARGS.writer_key)
    assert status == 200 and rows == [], (status, rows)
    status, _, payload = post("/v1/search", {"text": "truck", "datasets": ["notes"], "where": "1 = 1; DROP TABLE notes"}, ARGS.writer_key)
    assert status == 400, (status, payload)
    status, _, payload = post("/v1/search", {"text": "truck", "datasets": ["notes"], "where": "id IN (SELECT 1) -- ) OR (1 = 1"}, ARGS.key)
    assert status in (200, 400), (status, payload)
    assert sql("SELECT count(*) AS n FROM notes")[1] == before


def case_search_state_cannot_be_changed_by_callers():
    statements = [
        "DROP MACRO TABLE text_search",
        "CREATE OR REPLACE MACRO text_search(a, b, c := 1) AS TABLE SELECT 1 AS hijacked",
        "CREATE OR REPLACE MACRO quarry_search_text(a, b) AS TABLE SELECT 1 AS hijacked",
        'DROP TABLE quarry_search."notes__vectors_1"',
        'DELETE FROM quarry_search."notes__vectors_1"',
        'INSERT INTO quarry_search."notes__vectors_1" SELECT * FROM quarry_search."notes__vectors_1"',
        'SELECT * FROM quarry_search."notes__vectors_1"',
        "SELECT * FROM query('SELECT 1')",
        "DROP SCHEMA quarry_search CASCADE",
    ]
    for key in (ARGS.key, ARGS.writer_key):
        for statement in statements:
            status, body = sql(statement, key)
            assert 400 <= status < 500, (key == ARGS.writer_key, statement, status, body)
    status, rows = sql("SELECT id FROM vector_search('notes', 'kitten', 1)")
    assert status == 200 and rows == [{"id": 1}], (status, rows)


CASES = {name[len("case_"):]: function for name, function in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--writer-key", required=True)
    parser.add_argument("cases", nargs="*")
    ARGS = parser.parse_args()
    run_cases(CASES, ARGS.cases, lambda case: case())
