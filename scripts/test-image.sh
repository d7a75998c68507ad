#!/usr/bin/env bash
# npm run test:image: the Dockerfile's images built and run in a real Docker engine
# (test/docker/images.ts), the token out of a command's reach in one (token-jail.ts), then the fleet on them (test/docker/fleet.ts, test/docker/fleet-scrapybara.ts, test/docker/fleet-isolation.ts, test/docker/fleet-osworld.ts, and in its compose file: fleet-compose.ts, and on a three-node swarm: fleet-swarm.ts), and the density bench in its smoke mode (bench-density.ts). Uses the engine that runs; else, as root, installs one
# (install-system-deps.sh --image) and starts dockerd for the run, stopping it after. Where no
# engine can start (no root, not Debian, a sandbox that refuses it) it says why and skips:
# the only case it does not fail.
set -euo pipefail
cd "$(dirname "$0")/.."

skip() { echo "test:image: SKIPPED, no Docker engine can run here: $*"; exit 0; }
engine_up() { docker info >/dev/null 2>&1; }
is_root() { [ "$(id -u)" -eq 0 ]; }

dockerd_pid=
log=$(mktemp /tmp/test-image-dockerd.XXXXXX)
stop_engine() {
  # The OSWorld venv's install, if a failure ended the run while it went on.
  [ -n "${osworld_pid:-}" ] && kill "$osworld_pid" 2>/dev/null || true
  if [ -n "$dockerd_pid" ] && kill -0 "$dockerd_pid" 2>/dev/null; then
    kill -TERM "$dockerd_pid"
    for _ in $(seq 1 60); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$dockerd_pid" 2>/dev/null && kill -KILL "$dockerd_pid"
  fi
  rm -f "$log"
}
trap stop_engine EXIT

if ! engine_up; then
  if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1; then
    is_root || skip "none runs, none is installed, and installing one needs root"
    bash scripts/install-system-deps.sh --server-only --image || skip "its packages could not be installed (above)"
  fi
  if ! engine_up; then
    is_root || skip "none runs, and starting dockerd needs root"
    echo "test:image: starting dockerd for this run"
    dockerd >"$log" 2>&1 &
    dockerd_pid=$!
    for _ in $(seq 1 60); do
      engine_up && break
      kill -0 "$dockerd_pid" 2>/dev/null || break
      sleep 0.5
    done
    engine_up || { tail -n 20 "$log"; skip "dockerd did not start (its log above)"; }
  fi
fi
# Compose and debootstrap, where the engine came from elsewhere.
if ! docker compose version >/dev/null 2>&1 && ! command -v docker-compose >/dev/null 2>&1 || ! command -v debootstrap >/dev/null 2>&1; then
  bash scripts/install-system-deps.sh --server-only --image
fi
echo "test:image: $(docker version -f 'Docker engine {{.Server.Version}}, client {{.Client.Version}}')"
# BuildKit builds only the stages a target needs, and independent ones at once (the build
# stage's npm ci and compile beside slim's apt): every engine since 18.09 has it; the client
# drives it through buildx, or by itself before version 23 (Debian's docker.io). Else the
# classic builder, one stage after the other.
if docker buildx version >/dev/null 2>&1; then
  export IMAGE_BUILD='docker buildx build --load'
elif [ -x /usr/bin/docker ] && [ "$(/usr/bin/docker version -f '{{.Client.Version}}' 2>/dev/null | cut -d. -f1)" -lt 23 ] 2>/dev/null; then
  export IMAGE_BUILD='env DOCKER_BUILDKIT=1 /usr/bin/docker build'
fi
echo "test:image: images built with ${IMAGE_BUILD:-docker build, the classic builder}"

started=$(date +%s)
# OSWorld's harness installed whole (a download of some minutes) while the images build; waited
# for before fleet-osworld.ts, the one test that uses it.
osworld_log=$(mktemp /tmp/test-image-osworld-venv.XXXXXX)
bash scripts/osworld-venv.sh >"$osworld_log" 2>&1 &
osworld_pid=$!
bash scripts/docker-base.sh
npx tap --disable-coverage --timeout=3600 test/docker/images.ts
# The token out of a --shell command's reach in the desktop image images.ts just built (the same tag).
npx tap --disable-coverage --timeout=1200 test/docker/token-jail.ts
# The fleet on the desktop image images.ts just built (the same tag; nothing is built again).
npx tap --disable-coverage --timeout=1200 test/docker/fleet.ts
# The Scrapybara SDK against the fleet, pause and resume, on one warm desktop of the same image.
npx tap --disable-coverage --timeout=1200 test/docker/fleet-scrapybara.ts
# Two desktops isolated from each other, the socket out of reach, DevTools through the fleet (puppeteer-core), the Scrapybara Python SDK (packages/python/.venv).
npx tap --disable-coverage --timeout=1200 test/docker/fleet-isolation.ts
# OSWorld's DesktopEnv, installed from PyPI (packages/python/.venv-osworld), on fleet desktops (--osworld --shell) through the Python package's provider.
wait "$osworld_pid" || { cat "$osworld_log"; echo "test:image: packages/python/.venv-osworld could not be made (above)"; exit 1; }
cat "$osworld_log"; rm -f "$osworld_log"
npx tap --disable-coverage --timeout=1200 test/docker/fleet-osworld.ts
# deploy/fleet.compose.yaml brought up with that image (--no-build): the fleet in its container.
npx tap --disable-coverage --timeout=1200 test/docker/fleet-compose.ts
# The fleet past one host: a three-node Docker Swarm on this machine (scripts/swarm.sh), the same image on every node.
npx tap --disable-coverage --timeout=1500 test/docker/fleet-swarm.ts
# The density bench (bench/fleet-density.ts --smoke): one full desktop with Firefox through the fleet, nothing left behind.
npx tap --disable-coverage --timeout=600 test/docker/bench-density.ts
echo "test:image: done in $(( $(date +%s) - started )) s"
docker images --format 'test:image: {{.Repository}}:{{.Tag}} {{.Size}}' | grep -E '^test:image: (computer-gateway|node):' || true
