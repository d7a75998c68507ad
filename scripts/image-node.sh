#!/usr/bin/env bash
# Runs Node with the given arguments under the LTS line the Docker image runs (its `FROM node:N`),
# from the npm registry's `node` package, whatever Node the machine has: the test suite and the
# benches measure what users deploy. Servers a bench starts through `npm start`'s bin get the
# same Node, as npx puts it first on PATH. Usage: scripts/image-node.sh ARGS… (as `node ARGS…`)
set -euo pipefail
dockerfile="$(dirname "$0")/../Dockerfile"
line=$(sed -n '/^FROM node:/{s/^FROM node:\([0-9]*\)-.*/\1/p;q}' "$dockerfile")
if [ -z "$line" ]; then
  echo "image-node: no 'FROM node:N-…' line in $dockerfile" >&2
  exit 1
fi
echo "image-node: Node ${line} (the Docker image's line)" >&2
exec npx -y "node@${line}" "$@"
