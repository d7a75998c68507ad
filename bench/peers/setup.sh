#!/usr/bin/env bash
# The peers of bench/peers.ts, installed as a user installs them, into a cache directory of
# their own (nothing system-wide):
#   - a Python virtual environment with cua's computer server (PyPI cua-computer-server) and
#     pyautogui (PyPI), which OSWorld's guest runs in a `python -c` per action;
#   - Debian's scrot, unpacked (not installed) beside it: pyautogui's screenshot on X11 runs
#     scrot (or gnome-screenshot), and so does the Anthropic demo's screenshot.
# Prints the directory on its last line. Run again, it installs only what is missing.
# Usage: bench/peers/setup.sh [DIR]   (default: $XDG_CACHE_HOME or ~/.cache, computer-gateway/bench-peers)
set -euo pipefail
dir="${1:-${CG_BENCH_PEERS:-${XDG_CACHE_HOME:-$HOME/.cache}/computer-gateway/bench-peers}}"
mkdir -p "$dir"
python="$(command -v python3 || true)"
[ -n "$python" ] || { echo "python3 is not installed (the Python peers need it)" >&2; exit 2; }
# cua-computer-server 0.1.25 passes FastAPI an argument (websocket_max_size) that FastAPI took
# into **extra until 0.119 and now refuses: the server does not start with the newest FastAPI.
if ! "$dir/venv/bin/python" -c 'import computer_server.main, pyautogui' 2>/dev/null; then
  "$python" -m venv "$dir/venv" >&2 || { echo "python3 -m venv failed (Debian: python3-venv)" >&2; exit 3; }
  "$dir/venv/bin/pip" install --disable-pip-version-check --quiet cua-computer-server 'fastapi<0.120' pyautogui >&2 \
    || { echo "pip could not install cua-computer-server and pyautogui from PyPI" >&2; exit 4; }
fi
if [ ! -x "$dir/debian/usr/bin/scrot" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && apt-get download scrot >&2) || { echo "apt-get download scrot failed (Debian's scrot: the Python peers' screenshots)" >&2; exit 5; }
  dpkg-deb -x "$tmp"/scrot_*.deb "$dir/debian"
fi
"$dir/debian/usr/bin/scrot" --version >/dev/null 2>&1 || { echo "Debian's scrot, unpacked in $dir/debian, does not run (a library missing?)" >&2; exit 6; }
echo "$dir"
