"""HTTP conformance cases with Python's http.client (not Node's HTTP stack, not Quarry's client).

Usage: http_cases.py --base http://HOST:PORT --key KEY [CASE ...]; prints a JSON line per case.
"""

import http.client
import json
import subprocess
import urllib.parse

from case_runner import base_and_key_arguments, run_cases

ARGS = None

FAILING_QUERY = "SELECT CASE WHEN i = {at} THEN error('boom at {at}') ELSE i END AS v FROM range({rows}) t(i)"
ENGINE_LOST_ITS_MESSAGE = "the engine kept only that it stopped the query"
FORMATS = {
    "json": "application/json",
    "csv": "text/csv",
    "arrow": "application/vnd.apache.arrow.stream",
}


def post_sql(text, accept, extra_headers=None):
    """POST /v1/sql; returns (status, headers, body bytes, complete) where complete is False when the body was cut short."""
    base = urllib.parse.urlsplit(ARGS.base)
    connection = http.client.HTTPConnection(base.hostname, base.port, timeout=120)
    headers = {"Accept": accept, "Content-Type": "text/plain", "X-API-Key": ARGS.key, **(extra_headers or {})}
    connection.request("POST", "/v1/sql", body=text.encode(), headers=headers)
    response = connection.getresponse()
    complete = True
    try:
        body = response.read()
    except http.client.IncompleteRead as cut:
        body = cut.partial
        complete = False
    finally:
        connection.close()
    return response.status, {name.lower(): value for name, value in response.getheaders()}, body, complete


def case_failure_in_the_first_rows_is_an_error_status():
    for name, accept in FORMATS.items():
        status, headers, body, complete = post_sql(FAILING_QUERY.format(at=0, rows=10), accept)
        assert status == 400, f"{name}: status {status}"
        assert headers["content-type"].startswith("application/json"), f"{name}: {headers['content-type']}"
        error = json.loads(body)["error"]
        assert error["code"] == "QUERY_FAILED" and "boom at 0" in error["message"], f"{name}: {error}"


def case_failure_before_the_response_starts_is_an_error_status():
    # 150,000 rows are produced before the failure, but nothing has been sent yet: a clean error.
    for name, accept in FORMATS.items():
        status, _, body, complete = post_sql(FAILING_QUERY.format(at=150000, rows=300000), accept)
        assert status == 400 and complete, f"{name}: status {status}, complete {complete}"
        error = json.loads(body)["error"]
        assert error["code"] == "QUERY_FAILED", f"{name}: {error}"
        assert "boom at 150000" in error["message"] or ENGINE_LOST_ITS_MESSAGE in error["message"], f"{name}: {error}"


def case_failure_after_the_response_started_cuts_the_body():
    for name, accept in FORMATS.items():
        status, headers, body, complete = post_sql(FAILING_QUERY.format(at=1000000, rows=2000000), accept)
        assert status == 200, f"{name}: status {status}"
        assert headers.get("transfer-encoding") == "chunked", f"{name}: {headers}"
        assert not complete, f"{name}: a body of {len(body)} bytes read as complete: every HTTP client must see it cut short"
        assert len(body) > 0, name
        if name == "json":
            text = body.decode("utf-8", errors="replace")
            assert not text.rstrip().endswith("]"), "the JSON array must not be closed"


def case_repeat_of_a_failed_query_is_not_a_cache_hit():
    for _ in range(2):
        status, headers, _, complete = post_sql(FAILING_QUERY.format(at=1000000, rows=2000000), FORMATS["json"])
        assert status == 200 and not complete
        assert headers.get("x-cache") != "HIT", headers
    status, headers, _, _ = post_sql(FAILING_QUERY.format(at=150000, rows=300000), FORMATS["csv"])
    assert status == 400 and headers.get("x-cache") != "HIT", (status, headers)


def case_trailers_carry_the_error_with_curl():
    """curl is not Node either: with TE: trailers the body ends in order and the trailers name the failure."""
    query = FAILING_QUERY.format(at=1000000, rows=2000000)
    done = subprocess.run(
        ["curl", "-sS", "--raw", "-o", "-", "-H", "TE: trailers", "-H", f"X-API-Key: {ARGS.key}", "-H", "Content-Type: text/plain",
         "--data-binary", query, f"{ARGS.base}/v1/sql"],
        capture_output=True, timeout=120,
    )
    assert done.returncode == 0, f"curl exited {done.returncode}: {done.stderr.decode()}"
    tail = done.stdout[-600:].decode("utf-8", errors="replace")
    assert "\r\n0\r\n" in tail, "the terminating chunk"
    assert "x-quarry-status: error" in tail, tail
    assert "x-quarry-error-code: QUERY_FAILED" in tail, tail
    message = urllib.parse.unquote(tail.split("x-quarry-error-message: ", 1)[1].split("\r\n", 1)[0])
    assert "boom at 1000000" in message or ENGINE_LOST_ITS_MESSAGE in message, message
    # Without TE: trailers curl reports the cut (exit 18, "transfer closed with outstanding read data").
    cut = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-H", f"X-API-Key: {ARGS.key}", "--data-binary", query, f"{ARGS.base}/v1/sql"], capture_output=True, timeout=120)
    assert cut.returncode == 18, f"curl exited {cut.returncode}: {cut.stderr.decode()}"
    # A whole result with TE: trailers ends with x-quarry-status: ok.
    whole = subprocess.run(["curl", "-sS", "--raw", "-o", "-", "-H", "TE: trailers", "-H", f"X-API-Key: {ARGS.key}", "--data-binary", "SELECT * FROM range(200000)", f"{ARGS.base}/v1/sql"], capture_output=True, timeout=120)
    assert b"x-quarry-status: ok" in whole.stdout[-200:], whole.stdout[-200:]


def case_whole_large_results_are_complete():
    for name, accept in FORMATS.items():
        status, _, body, complete = post_sql("SELECT i FROM range(3000000) t(i)", accept)
        assert status == 200 and complete, f"{name}: {status} {complete}"
        if name == "json":
            assert len(json.loads(body)) == 3000000
        if name == "csv":
            assert body.count(b"\n") == 3000001


CASES = {name[len("case_"):]: function for name, function in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    ARGS = base_and_key_arguments()
    run_cases(CASES, ARGS.cases, lambda case: case())
