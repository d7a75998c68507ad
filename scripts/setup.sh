#!/usr/bin/env bash
# npm run setup: system packages, then npm dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-deps.sh
if [ -f package-lock.json ]; then npm ci --no-fund --no-audit; else npm install --no-fund --no-audit; fi
