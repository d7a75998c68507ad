#!/usr/bin/env bash
# System packages computer-gateway and its tests need, on Debian or Ubuntu. Idempotent:
# installs only what is missing (apt-get update only then), as root or through sudo. The
# Dockerfile runs this same script.
#
#   scripts/install-system-deps.sh                  # server + tests
#   scripts/install-system-deps.sh --server-only    # what the server needs at run time
#   scripts/install-system-deps.sh [...] tini       # extra packages, e.g. for an image
set -euo pipefail

# The server: Xvfb is the desktop; xdotool presses what libnut cannot (buttons 8/9, keys
# without a libnut name) and types non-ASCII; x11-xkb-utils has setxkbmap (layout pinned to
# US); x11-xserver-utils has xmodmap (the keymap the driver reads), xrandr and xsetroot;
# xclip for clipboard typing; imagemagick is what screenshot-desktop shells out to; libxtst6
# is what libnut's prebuilt binary links; xauth for displays with cookies; procps for pgrep;
# jwm is the (EWMH) window manager started on our own Xvfb for the window actions;
# dbus-daemon and at-spi2-core (at-spi-bus-launcher, at-spi2-registryd) are the session and
# accessibility buses GET /accessibility reads the tree over.
server=(xvfb xdotool x11-xkb-utils x11-xserver-utils xclip imagemagick libxtst6 xauth procps fonts-dejavu-core jwm dbus-daemon at-spi2-core)
# The tests: real X applications to act on (xterm, xev and xprop from x11-utils, Chromium as
# the event oracle, yad as a small GTK form for the accessibility tree, openbox beside it) and xinput to read
# what X holds down.
tests=(x11-utils xinput xterm openbox yad)

server_only=false
extra=()
for arg in "$@"; do
  case "$arg" in
    --server-only) server_only=true ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    -*) echo "install-system-deps: unknown option $arg" >&2; exit 2 ;;
    *) extra+=("$arg") ;;
  esac
done

wanted=("${server[@]}" "${extra[@]}")
$server_only || wanted+=("${tests[@]}")

if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-query >/dev/null 2>&1; then
  echo "install-system-deps: this is not a Debian/Ubuntu system (no apt-get); skipping." >&2
  echo "  Install these (or your distribution's equivalents) yourself: ${wanted[*]}$($server_only || echo ' chromium')" >&2
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    echo "install-system-deps: run as root, or install sudo" >&2
    exit 1
  fi
fi
# sudo resets the environment, so the variable goes on the command line.
apt_get() { "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "$@"; }

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
has_candidate() { apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [^(]'; }

missing=()
for package in "${wanted[@]}"; do installed "$package" || missing+=("$package"); done
# Debian calls it chromium; Ubuntu only has chromium-browser, which may need snapd.
want_chromium=false
if ! $server_only && ! installed chromium && ! installed chromium-browser; then want_chromium=true; fi

if [ ${#missing[@]} -eq 0 ] && ! $want_chromium; then
  echo "install-system-deps: everything is installed"
  exit 0
fi

echo "install-system-deps: installing ${missing[*]}$($want_chromium && echo ' chromium')"
apt_get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  apt_get install -y -qq --no-install-recommends "${missing[@]}"
fi

if $want_chromium; then
  chromium=''
  if has_candidate chromium; then chromium=chromium
  elif has_candidate chromium-browser; then chromium=chromium-browser
  fi
  # Only the Chromium event-oracle tests need it: a failure here is a warning, not an error.
  if [ -z "$chromium" ]; then
    echo "install-system-deps: warning: no chromium package in the apt sources; the Chromium-based tests will be skipped" >&2
  elif ! apt_get install -y -qq --no-install-recommends "$chromium"; then
    echo "install-system-deps: warning: installing $chromium failed (on Ubuntu it needs snapd); the Chromium-based tests will be skipped" >&2
  fi
fi
echo "install-system-deps: done"
