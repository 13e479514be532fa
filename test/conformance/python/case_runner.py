"""Runs conformance cases and reports each as one JSON line (read by test/helpers/python-clients.ts)."""

import argparse
import json
import time
import traceback


def run_cases(cases, names, invoke):
    """Runs the named cases (all when none are named) in order; a failure is reported, never raised."""
    for name in names or sorted(cases):
        started = time.monotonic()
        try:
            invoke(cases[name])
            outcome = {"case": name, "ok": True}
        except BaseException as error:  # anyio wraps failures in exception groups; every failure belongs to its case
            outcome = {"case": name, "ok": False, "error": f"{type(error).__name__}: {error}\n{traceback.format_exc()}"}
        outcome["seconds"] = round(time.monotonic() - started, 2)
        print(json.dumps(outcome), flush=True)


def base_and_key_arguments():
    """`--base http://HOST:PORT --key KEY [CASE ...]`, the arguments of the HTTP and MCP cases."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("cases", nargs="*")
    return parser.parse_args()
