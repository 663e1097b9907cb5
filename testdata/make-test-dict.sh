#!/usr/bin/env bash
# Regenerates testdata/test.dict: one small, fixed zstd dictionary for the
# tests whose subject is not the dictionary (round trips, pipe/file
# equality, decompress modes), so that they do not train one per file.
# rdbz trains it from a *generated* corpus file (never from corpus/public).
# Usage: testdata/make-test-dict.sh [CORPUS]   (default ../shared/corpus)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:-$root/../shared/corpus}
cd "$root"
go run ./cmd/rdbz train -f -o testdata/test.dict --dict-size 16384 --sample-bytes 2000000 --seed 1 \
  "$corpus/generated/mixed-all-types.rdb"
