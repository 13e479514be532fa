"""The reproductions of hostile input, sent by Python's http.client and raw sockets to a
running quarryd (test/hostile/hostile-input.test.ts starts it and watches its memory and its
shutdown). Each case asserts the runtime's coded answer; every case ends with the runtime
still answering a plain query."""

import argparse
import http.client
import json
import re
import socket
import time
import urllib.parse

from case_runner import run_cases

PARSER = argparse.ArgumentParser()
PARSER.add_argument("--base", required=True)
PARSER.add_argument("--key", required=True)
PARSER.add_argument("--metrics", required=True, help="the Prometheus endpoint, http://HOST:PORT/metrics")
PARSER.add_argument("cases", nargs="*")
ARGUMENTS = PARSER.parse_args()
BASE = urllib.parse.urlparse(ARGUMENTS.base)
METRICS = urllib.parse.urlparse(ARGUMENTS.metrics)


def connection(timeout=120):
    return http.client.HTTPConnection(BASE.hostname, BASE.port, timeout=timeout)


def request(method, path, body=None, headers=None):
    """One request on a fresh connection: (status, parsed JSON or text)."""
    client = connection()
    try:
        all_headers = {"x-api-key": ARGUMENTS.key, "accept": "application/json", **(headers or {})}
        client.request(method, path, body=body, headers=all_headers)
        response = client.getresponse()
        text = response.read().decode("utf-8", "replace")
        try:
            return response.status, json.loads(text)
        except ValueError:
            return response.status, text
    finally:
        client.close()


def sql(text, **kwargs):
    return request("POST", "/v1/sql", body=text.encode("utf-8"), headers={"content-type": "text/plain", **kwargs.get("headers", {})})


def expect_error(answer, status, code):
    got_status, body = answer
    got_code = body.get("error", {}).get("code") if isinstance(body, dict) else None
    assert (got_status, got_code) == (status, code), f"expected {status} {code}, got {got_status}: {str(body)[:300]}"
    assert body["error"].get("message"), "the error has a message"
    return body["error"]["message"]


def still_answers():
    status, body = sql("SELECT 42 AS answer")
    assert (status, body) == (200, [{"answer": 42}]), f"the runtime no longer answers: {status} {body}"


def active_queries():
    client = http.client.HTTPConnection(METRICS.hostname, METRICS.port, timeout=30)
    try:
        client.request("GET", METRICS.path)
        response = client.getresponse()
        text = response.read().decode()
    finally:
        client.close()
    assert response.status == 200, f"the metrics endpoint answered {response.status}"
    total = 0.0
    for line in text.splitlines():
        if line.startswith("query_active_count"):
            total += float(line.rsplit(" ", 1)[1])
    return total


def case_union_all_bomb():
    # 20,000 branches in ~400 KB: ran 124 s and grew to ~7 GB before.
    message = expect_error(sql("SELECT 1 " + "UNION ALL SELECT 1 " * 20000), 400, "SQL_TOO_COMPLEX")
    assert "20001 queries" in message, message
    still_answers()


def case_nested_comment_bomb():
    expect_error(sql("SELECT 1 " + "/*" * 10000 + "*/" * 10000), 400, "SQL_TOO_COMPLEX")
    still_answers()


def case_huge_values():
    # 8 values of 100 MB against a 1 GiB memory_limit: peaked at 5.9 GB before.
    message = expect_error(sql("SELECT repeat('x', 100000000) AS big FROM range(8)"), 413, "RESULT_VALUE_TOO_LARGE")
    assert 'column "big"' in message and "max_value_size" in message, message
    still_answers()


def case_huge_aggregate():
    expect_error(sql("SELECT string_agg(repeat('x', 1000), '') AS joined FROM range(200000)"), 413, "RESULT_VALUE_TOO_LARGE")
    still_answers()


def case_sql_longer_than_the_limit():
    expect_error(sql("SELECT 1 -- " + "x" * (2 * 1024 * 1024)), 400, "SQL_TOO_LONG")
    still_answers()


def case_nul_byte():
    expect_error(sql("SELECT 1\x00"), 400, "SQL_INVALID")
    still_answers()


def case_deep_json_parameters():
    body = '{"sql": "SELECT $1 AS p", "parameters": [' + "[" * 20000 + "]" * 20000 + "]}"
    expect_error(request("POST", "/v1/sql", body=body.encode(), headers={"content-type": "application/json"}), 400, "BODY_INVALID_JSON")
    still_answers()


def case_logging_to_a_file():
    expect_error(sql("SELECT * FROM enable_logging(storage='file', storage_path='/tmp/quarry-hostile-log')"), 400, "STATEMENT_NOT_ALLOWED")
    still_answers()


def case_encoded_path_and_huge_header():
    status, body = request("POST", "/%2Fv1%2Fsql", body=b"SELECT 1", headers={"content-type": "text/plain"})
    assert status == 404 and isinstance(body, dict) and body["error"]["code"], f"{status} {body}"
    status, body = request("GET", "/health", headers={"x-padding": "p" * 20000})
    assert (status, body["error"]["code"]) == (431, "HEADERS_TOO_LARGE"), f"{status} {body}"
    still_answers()


def case_pipelined_requests_all_answered_in_order():
    payload = b""
    for value in (1, 2, 3):
        text = f"SELECT {value} AS v, count(*) AS n FROM range(200000)".encode()
        payload += b"POST /v1/sql HTTP/1.1\r\nHost: x\r\nX-API-Key: " + ARGUMENTS.key.encode() + b"\r\nContent-Type: text/plain\r\nAccept: application/json\r\n"
        payload += b"Content-Length: " + str(len(text)).encode() + b"\r\n\r\n" + text
    with socket.create_connection((BASE.hostname, BASE.port), timeout=60) as raw:
        raw.sendall(payload)
        received = b""
        while received.count(b"HTTP/1.1 ") < 3 or not received.rstrip().endswith(b"]"):
            chunk = raw.recv(65536)
            if not chunk:
                break
            received += chunk
    text = received.decode("utf-8", "replace")
    statuses = re.findall(r"HTTP/1\.1 (\d{3})", text)
    assert statuses == ["200", "200", "200"], text[:1000]
    assert [int(part.split(",")[0]) for part in text.split('"v":')[1:]] == [1, 2, 3], text[:1000]
    still_answers()


def case_client_that_leaves_stops_its_query():
    client = connection()
    client.request("POST", "/v1/sql", body=b"SELECT count(*) FROM range(100000000000000)", headers={"x-api-key": ARGUMENTS.key, "content-type": "text/plain"})
    # Wait until the runtime runs it, then leave without reading the answer.
    deadline = time.monotonic() + 60
    while active_queries() < 1:
        assert time.monotonic() < deadline, "the query never started"
        time.sleep(0.05)
    client.sock.shutdown(socket.SHUT_RDWR)
    client.close()
    # The engine's work must end with its client, not run on for hours.
    deadline = time.monotonic() + 60
    while active_queries() > 0:
        assert time.monotonic() < deadline, "the query kept running after its client left"
        time.sleep(0.05)
    still_answers()


CASES = {name[len("case_"):]: function for name, function in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    run_cases(CASES, ARGUMENTS.cases, lambda case: case())
