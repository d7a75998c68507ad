#!/usr/bin/env bash
# System packages the server and its tests need, on Debian or Ubuntu. Idempotent: installs
# only what is missing, as root or through sudo. The Dockerfile runs this same script.
set -euo pipefail

# Xvfb: the desktop; xdotool: buttons 8/9, keys libnut lacks, and the tests' probes;
# x11-xkb-utils: setxkbmap to pin the layout; x11-utils/x11-xserver-utils/xinput: X queries;
# xterm, openbox, chromium, fonts: real applications the end-to-end tests act on;
# imagemagick: what screenshot-desktop (the reference approach) shells out to.
packages=(xvfb xdotool x11-utils x11-xserver-utils x11-xkb-utils xinput xclip xterm openbox
  fonts-dejavu-core imagemagick libxtst6 xauth procps)

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-system-deps: no apt-get here; install these yourself: ${packages[*]} chromium" >&2
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
    echo "install-system-deps: run as root or install sudo" >&2; exit 1
  fi
fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

missing=()
for package in "${packages[@]}"; do installed "$package" || missing+=("$package"); done
# Debian calls it chromium; Ubuntu's chromium-browser is a snap shim, so prefer Debian's name.
if ! installed chromium && ! installed chromium-browser; then missing+=(chromium); fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-system-deps: all present"
  exit 0
fi
echo "install-system-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
