#!/usr/bin/env bash
# packages/python/.venv-osworld: OSWorld's harness installed as a user installs it, desktop-env
# from PyPI with every dependency it declares (torch, easyocr and some 260 packages, ~7 GB, a few
# minutes to download), at the versions of packages/python/osworld-requirements.txt, beside this
# package and pytest. test/docker/fleet-osworld.ts constructs OSWorld's installed DesktopEnv from
# it. npm run test:image starts this at its beginning, beside the image build, and waits for it
# before that test. A venv already made from the same requirements is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
package=packages/python
venv=$package/.venv-osworld
requirements=$package/osworld-requirements.txt
# Debian's python3 where there is one, as scripts/test-python.sh takes it.
python=$(command -v /usr/bin/python3 || command -v python3)
stamp=$(sha256sum "$requirements" "$package/pyproject.toml" | sha256sum | cut -c1-16)
if [ -f "$venv/.installed" ] && [ "$(cat "$venv/.installed")" = "$stamp" ]; then
  echo "osworld-venv: $venv is up to date"
  exit 0
fi
started=$(date +%s)
rm -rf "$venv"
"$python" -m venv "$venv"
pip() { "$venv/bin/python" -m pip --disable-pip-version-check "$@"; }
# Every package pinned, so nothing is resolved again: --no-deps takes the list as it is.
pip install --quiet --no-deps --requirement "$requirements"
pip install --quiet --constraint "$package/constraints.txt" pytest
pip install --quiet --no-deps --editable "$package"
if ! imported=$(cd "$package" && .venv-osworld/bin/python -c 'import desktop_env.desktop_env, computer_gateway.osworld' 2>&1); then
  echo "$imported" | tail -n 20 >&2
  echo "osworld-venv: desktop_env.desktop_env does not import in $venv (above)" >&2
  exit 1
fi
echo "$stamp" > "$venv/.installed"
echo "osworld-venv: $venv made in $(( $(date +%s) - started )) s ($(du -sh "$venv" | cut -f1))"
