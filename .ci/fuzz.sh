#!/usr/bin/env bash
# Runs every fuzz target of the module for a bounded time (FUZZTIME,
# default 5s each). A failing input is written by Go to the package's
# testdata/fuzz/FuzzName/ directory: commit it, and from then on plain
# `go test` runs it as a regression case.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${FUZZTIME:-5s}"
status=0
while IFS=: read -r file name; do
  pkg="./$(dirname "$file")"
  echo "fuzz: $pkg $name ($fuzztime)"
  if ! go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime"; then
    echo "fuzz: $name failed; the input is in $(dirname "$file")/testdata/fuzz/$name/ (commit it as a regression case)"
    status=1
  fi
done < <(git grep -o -E '^func Fuzz[A-Za-z0-9_]*' -- '*_test.go' | sed 's/:func /:/')
exit "$status"
