#!/usr/bin/env bash
# npm run setup: the system packages (Xvfb & co., see install-system-deps.sh), then the npm
# dependencies exactly as locked when there is a lock file, then the server compiled to dist/
# (npm start runs it: no TypeScript compiled at start-up).
#   npm run setup                  # the server and its tests
#   npm run setup -- --desktop     # + the full desktop's packages (--desktop full)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-deps.sh "$@"
if [ -f package-lock.json ]; then
  npm ci --no-fund --no-audit
else
  npm install --no-fund --no-audit
fi
npm run build
