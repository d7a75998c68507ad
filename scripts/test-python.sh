#!/usr/bin/env bash
# npm run test:python: the Python package (packages/python) on the real server and desktop.
#   1. its virtual environment, packages/python/.venv, from Debian's python3 (python3-venv),
#      with the package (editable) and its development tools at the versions of
#      constraints.txt, from PyPI; nothing is installed system-wide;
#   2. ruff (lint and format) and mypy --strict;
#   3. python -m build: the sdist and the wheel; the wheel installed (with its extras) into a
#      fresh virtual environment, whose Python runs the README's examples;
#   4. pytest: the clients, the frameworks' loops and the examples against `computer-gateway`
#      on its own Xvfb (the fixtures start and stop it). pytest fails when it collects no test.
#   scripts/test-python.sh --setup    # step 1 only (npm run setup runs this)
set -euo pipefail
cd "$(dirname "$0")/.."
package=packages/python
venv=$package/.venv
# Debian's python3 where there is one (the one python3-venv is for), else the PATH's.
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)

if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
desktop_env_version=1.0.2
pip_install() { "$1" -m pip install --quiet --disable-pip-version-check --constraint "$package/constraints.txt" "${@:2}"; }
pip_install "$venv/bin/python" --editable "$package[dev]"
# OSWorld's harness (tests/test_osworld.py): the desktop-env wheel alone, never installed. Its
# dependencies (torch, transformers and some sixty more) are far beyond what the module the test
# runs, desktop_env/controllers/python.py, imports (requests): the test imports it from the wheel.
if ! ls "$venv/osworld/desktop_env-$desktop_env_version-"*.whl >/dev/null 2>&1; then
  "$venv/bin/python" -m pip download --quiet --disable-pip-version-check --no-deps --dest "$venv/osworld" "desktop-env==$desktop_env_version"
fi
[ "${1:-}" = --setup ] && exit 0

echo "test:python: ruff and mypy --strict"
(cd "$package" && .venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/mypy)

scratch=$(mktemp -d "${TMPDIR:-/tmp}/computer-gateway-python.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
echo "test:python: python -m build, and the wheel in a fresh virtual environment"
# --no-isolation: the build backend (hatchling) is the pinned one of .venv, not fetched anew.
(cd "$package" && .venv/bin/python -m build --no-isolation --outdir "$scratch/dist" . >"$scratch/build.log" 2>&1) ||
  { cat "$scratch/build.log" >&2; exit 1; }
wheel=$(ls "$scratch"/dist/computer_gateway-*.whl)
"$python" -m venv "$scratch/venv"
pip_install "$scratch/venv/bin/python" "$wheel[openai-agents,anthropic,image]"

echo "test:python: pytest"
cd "$package"
README_PYTHON="$scratch/venv/bin/python" .venv/bin/pytest
