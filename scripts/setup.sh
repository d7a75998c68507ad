#!/usr/bin/env bash
# npm run setup: everything the server and its whole test suite need, on a Debian or Ubuntu
# machine, whatever Node it has. One line per step, with how long it took; what apt and npm say
# goes to a log file, whose path is printed (with its last lines) when a step fails.
#   1. the system packages: Xvfb & co., the tests' applications and the full desktop
#      (scripts/install-system-deps.sh; --no-desktop leaves the full desktop's packages out);
#   2. the npm dependencies exactly as locked, among them the project's own Node (the npm
#      registry's `node` package, on the Docker image's LTS line), which npm's scripts run on;
#   3. tap's plugins built as package.json's "tap" config names them;
#   4. the server compiled to dist/ (npm start runs it: no TypeScript compiled at start-up);
#   5. the Python package's virtual environment, packages/python/.venv, with its pinned
#      development tools from PyPI (scripts/test-python.sh --setup; nothing system-wide).
#   npm run setup                    # all of it
#   npm run setup -- --no-desktop    # without the full desktop (--desktop full) and its applications
set -euo pipefail
cd "$(dirname "$0")/.."

system_args=(--desktop)
for arg in "$@"; do
  case "$arg" in
    --desktop) ;; # the default; still accepted
    --no-desktop) system_args=() ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "setup: unknown option $arg (see npm run setup -- --help)" >&2; exit 2 ;;
  esac
done

log=$(mktemp "${TMPDIR:-/tmp}/computer-gateway-setup.XXXXXX")
mv "$log" "$log.log" && log="$log.log"

# step WHAT COMMAND…: runs COMMAND with its output in the log; one line when it ends.
step() {
  local what=$1 started ended
  shift
  started=$(date +%s%N)
  printf 'setup: %s … ' "$what"
  echo "=== $what: $*" >>"$log"
  if "$@" >>"$log" 2>&1; then
    ended=$(date +%s%N)
    printf 'done in %s s\n' "$(awk -v ns=$((ended - started)) 'BEGIN { printf "%.1f", ns / 1e9 }')"
  else
    local rc=$?
    echo "failed (exit $rc)"
    echo "setup: the last lines of its output; all of it is in $log" >&2
    tail -n 25 "$log" | sed 's/^/  | /' >&2
    exit "$rc"
  fi
}

npm_install() {
  if [ -f package-lock.json ]; then npm ci --no-fund --no-audit; else npm install --no-fund --no-audit; fi
}

# The project's Node must be there and satisfy engines: every npm script runs on it.
project_node() {
  local node=node_modules/.bin/node
  [ -x "$node" ] || { echo "no $node: the npm registry's node package did not install"; return 1; }
  "$node" -e '
    const wanted = require("./package.json").engines.node
    const [major, minor] = /^>=(\d+)\.(\d+)$/.exec(wanted).slice(1).map(Number)
    const [m, n] = process.versions.node.split(".").map(Number)
    if (m < major || (m === major && n < minor)) { console.error(`the project Node ${process.version} is older than engines ${wanted}`); process.exit(1) }
    console.log(`the project Node: ${process.version} (${process.execPath})`)'
}

step "system packages (apt)" bash scripts/install-system-deps.sh "${system_args[@]}"
step "npm dependencies (npm ci)" npm_install
step "the project's Node ($(node_modules/.bin/node --version 2>/dev/null || echo missing))" project_node
step "tap's plugins (tap build)" npx --no-install tap build
step "the server compiled to dist/ (npm run build)" npm run build
step "the Python package's environment (packages/python/.venv)" bash scripts/test-python.sh --setup
rm -f "$log"
echo "setup: ready: npm start runs the server, npm test the suite"
