#!/usr/bin/env bash
# Regenerates core/flight/generated/ from proto/ (Arrow Flight + Flight SQL) with buf and
# protoc-gen-es, both npm dev dependencies: offline, no protoc needed.
#   npm run generate:protos   (or: bash scripts/generate-protos.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
buf generate
echo "generated:"
find core/flight/generated -name '*.ts' | sort
