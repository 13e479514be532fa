"""Validates manifests against docs/manifest.schema.json with the `jsonschema` package's
Draft 2020-12 validator (a standard validator Quarry did not write). The documents arrive
as JSON (parsed from YAML by the test, as the runtime parses them), one per line on stdin:
{"name", "document"}. Prints one line per document: {"name", "valid", "errors"}."""

import json
import sys

from jsonschema import Draft202012Validator

schema = json.load(open(sys.argv[1], encoding="utf-8"))
Draft202012Validator.check_schema(schema)
validator = Draft202012Validator(schema)

for line in sys.stdin:
    if not line.strip():
        continue
    case = json.loads(line)
    errors = [f"{'/'.join(str(part) for part in error.absolute_path) or '(root)'}: {error.message}" for error in validator.iter_errors(case["document"])]
    print(json.dumps({"name": case["name"], "valid": not errors, "errors": errors[:5]}), flush=True)
