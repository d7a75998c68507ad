#!/usr/bin/env sh
# What a pruned node_modules still holds that nothing runs: source maps, TypeScript declarations
# and Markdown (READMEs, changelogs; licences stay), ~29 MB of the images' 130 MB. The Dockerfile's
# build stage runs it after `npm prune --omit=dev`; test/deploy-image.test.ts runs the server on
# a copy trimmed the same way.
#
#   scripts/trim-node-modules.sh DIR/node_modules
set -eu
dir=${1:?usage: trim-node-modules.sh DIR/node_modules}
[ -d "$dir" ] || { echo "trim-node-modules: no directory $dir" >&2; exit 1; }
find "$dir" -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \
  -o \( -name '*.md' ! -iname 'licen[cs]e*' \) \) -delete
