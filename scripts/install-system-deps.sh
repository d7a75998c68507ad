#!/usr/bin/env bash
# System packages computer-gateway and its tests need, on Debian or Ubuntu. Idempotent:
# installs only what is missing (apt-get update only then), as root or through sudo. The
# Dockerfile runs this same script. Nothing is optional: a package that cannot be installed
# ends the script with an error naming it, so a test can never be skipped for want of it.
#
#   scripts/install-system-deps.sh                  # server + tests
#   scripts/install-system-deps.sh --server-only    # what the server needs at run time
#   scripts/install-system-deps.sh --desktop        # + the full desktop (--desktop full)
#   scripts/install-system-deps.sh --image          # + a Docker engine, compose, debootstrap (npm run test:image)
#   scripts/install-system-deps.sh [...] tini       # extra packages, e.g. for an image
set -euo pipefail

# The server: Xvfb is the desktop; xdotool presses what libnut cannot (buttons 8/9, keys
# without a libnut name) and types non-ASCII; x11-xkb-utils has setxkbmap (layout pinned to
# US); x11-xserver-utils has xmodmap (the keymap the driver reads), xrandr and xsetroot;
# xclip for clipboard typing; imagemagick is what screenshot-desktop shells out to; libxtst6
# is what libnut's prebuilt binary links; xauth makes the display's X authority cookie;
# procps for pgrep; jwm is the (EWMH) window manager started on our own Xvfb for the window
# actions; dbus-daemon and at-spi2-core (at-spi-bus-launcher, at-spi2-registryd) are the
# session and accessibility buses GET /accessibility reads the tree over; x11vnc is the VNC
# server the live view (GET /live) shows the desktop through, on a private unix socket;
# ffmpeg records an episode's video (--record: x11grab into fragmented MP4) and ffprobe reads it.
# xterm is the terminal jwm requires (any x-terminal-emulator): named here, it is the one apt
# picks, and not rxvt-unicode, which brings Perl (~50 MB) into the image.
server=(xvfb xdotool x11-xkb-utils x11-xserver-utils xclip imagemagick libxtst6 xauth procps fonts-dejavu-core jwm xterm dbus-daemon at-spi2-core x11vnc ffmpeg)
# The tests: real X applications to act on (xterm above, xev and xprop from x11-utils, Chromium as
# the event oracle, yad as a small GTK form for the accessibility tree, openbox beside it) and
# xinput to read what X holds down; Debian's python3 and python3-venv for the Python package's
# virtual environments (npm run test:python; its packages come from PyPI into them); python3-dev
# for the OSWorld one (npm run test:image): its evdev (desktop-env's pynput needs it) has no
# wheel on PyPI and compiles against Python.h.
tests=(x11-utils xinput openbox yad chromium python3 python3-venv python3-dev)
# The full desktop (--desktop full): an XFCE session (window manager, panel, wallpaper,
# settings daemon; no screensaver, locker, power manager or notification daemon, which get in
# an agent's way), dbus-launch from dbus-x11, the applications launch_app knows by name, and
# fonts for every script the typing corpus covers (DejaVu: Latin, Greek, Cyrillic; Noto: CJK,
# emoji). atril and galculator are GTK 3, and libreoffice-gtk3 is LibreOffice's GTK 3 face:
# all three show in the accessibility tree. xdg-utils opens a URL in the default browser.
# tesseract-ocr: the task suite's agent (tasks/) reads the screen with it where the tree has
# no text (a PDF page). chromium is --browser chromium's (its DevTools at /browser/cdp).
desktop=(xfce4-session xfwm4 xfce4-panel xfdesktop4 xfce4-settings xfconf dbus-x11 xdg-utils
  xfce4-terminal firefox-esr chromium mousepad thunar atril galculator
  libreoffice-writer libreoffice-calc libreoffice-gtk3
  fonts-dejavu-core fonts-noto-cjk fonts-noto-color-emoji
  tesseract-ocr tesseract-ocr-eng)
# npm run test:image: a Docker engine and compose to build and run the images, debootstrap to
# assemble their base where it cannot be pulled (scripts/docker-base.sh).
image=(docker.io docker-compose debootstrap)

server_only=false
with_desktop=false
with_image=false
extra=()
for arg in "$@"; do
  case "$arg" in
    --server-only) server_only=true ;;
    --desktop) with_desktop=true ;;
    --image) with_image=true ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "install-system-deps: unknown option $arg" >&2; exit 2 ;;
    *) extra+=("$arg") ;;
  esac
done

wanted=("${server[@]}" "${extra[@]}")
$server_only || wanted+=("${tests[@]}")
$with_desktop && wanted+=("${desktop[@]}")
$with_image && wanted+=("${image[@]}")

if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-query >/dev/null 2>&1; then
  echo "install-system-deps: this is not a Debian/Ubuntu system (no apt-get)." >&2
  echo "  Install these (or your distribution's equivalents), then run npm run setup again: ${wanted[*]}" >&2
  exit 1
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
# Another apt run (unattended upgrades, a second setup) holds the lock for a while: wait for it.
apt_get() { "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 "$@"; }

# No `| grep -q` here: grep -q leaves at its first match, the writer dies of SIGPIPE, and
# under pipefail the whole test counts as failed (that once skipped Chromium on a fresh machine).
installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = 'install ok installed' ]; }
candidate() { apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p' | head -n 1; }

# Debian calls it chromium; Ubuntu's chromium-browser is a snap wrapper and counts if present.
alternative() { case "$1" in chromium) echo chromium-browser ;; esac; }

missing=()
for package in "${wanted[@]}"; do
  if installed "$package"; then continue; fi
  alt=$(alternative "$package")
  if [ -n "$alt" ] && installed "$alt"; then continue; fi
  missing+=("$package")
done

# The full desktop's Firefox starts without first-run, update, telemetry or password prompts
# and never offers to restore a session that died with its X server; its scrollbars are the
# classic ones, always drawn: GTK's overlay scrollbars fade in and out on every pointer move,
# and on Xvfb each frame of that is rendered in software (~100 ms of CPU a click, against
# ~20 ms), while a model sees in a screenshot how far a page is scrolled. Firefox reads these
# system-wide policies on Linux. Ours, from an earlier setup too, is brought up to date; one
# the administrator wrote is left as it is.
FIREFOX_POLICIES='{
  "policies": {
    "DisableAppUpdate": true,
    "AppAutoUpdate": false,
    "DisableTelemetry": true,
    "DisableFirefoxStudies": true,
    "DontCheckDefaultBrowser": true,
    "OverrideFirstRunPage": "",
    "OverridePostUpdatePage": "",
    "NoDefaultBookmarks": true,
    "DisableProfileImport": true,
    "PasswordManagerEnabled": false,
    "OfferToSaveLogins": false,
    "UserMessaging": {
      "WhatsNew": false,
      "ExtensionRecommendations": false,
      "FeatureRecommendations": false,
      "UrlbarInterventions": false,
      "SkipOnboarding": true,
      "MoreFromMozilla": false,
      "Locked": false
    },
    "Preferences": {
      "browser.aboutwelcome.enabled": { "Value": false, "Status": "default" },
      "browser.sessionstore.resume_from_crash": { "Value": false, "Status": "default" },
      "browser.startup.homepage_override.mstone": { "Value": "ignore", "Status": "default" },
      "browser.tabs.warnOnClose": { "Value": false, "Status": "default" },
      "browser.tabs.warnOnCloseOtherTabs": { "Value": false, "Status": "default" },
      "datareporting.policy.dataSubmissionPolicyBypassNotification": { "Value": true, "Status": "default" },
      "accessibility.force_disabled": { "Value": 0, "Status": "default" },
      "widget.gtk.overlay-scrollbars.enabled": { "Value": false, "Status": "default" }
    }
  }
}'
firefox_policies() {
  local file=/etc/firefox/policies/policies.json
  if [ -f "$file" ]; then
    # Every version of ours turns off the crash-restore page; an administrator's file is theirs.
    if ! grep -q 'sessionstore.resume_from_crash' "$file"; then
      echo "install-system-deps: note: $file exists and is left as it is (the desktop's Firefox may show first-run pages)"
      return 0
    fi
    [ "$(cat "$file")" = "$FIREFOX_POLICIES" ] && return 0
  fi
  "${as_root[@]}" mkdir -p "$(dirname "$file")"
  printf '%s\n' "$FIREFOX_POLICIES" | "${as_root[@]}" tee "$file" >/dev/null
  echo "install-system-deps: wrote $file"
}

# Chromium (--browser chromium) likewise: no first-run page, default-browser prompt, sign-in,
# sync, translation bubble, promotions or metrics, no component updates fetched, no password or
# autofill offers. Read from /etc/chromium/policies/managed, every file there; this one is ours
# and kept up to date, an administrator's beside it is left alone.
CHROMIUM_POLICIES='{
  "HideFirstRunExperience": true,
  "DefaultBrowserSettingEnabled": false,
  "BrowserSignin": 0,
  "SyncDisabled": true,
  "PromotionalTabsEnabled": false,
  "PrivacySandboxPromptEnabled": false,
  "TranslateEnabled": false,
  "MetricsReportingEnabled": false,
  "UrlKeyedAnonymizedDataCollectionEnabled": false,
  "ComponentUpdatesEnabled": false,
  "PasswordManagerEnabled": false,
  "AutofillAddressEnabled": false,
  "AutofillCreditCardEnabled": false
}'
chromium_policies() {
  local file=/etc/chromium/policies/managed/computer-gateway.json
  [ -f "$file" ] && [ "$(cat "$file")" = "$CHROMIUM_POLICIES" ] && return 0
  "${as_root[@]}" mkdir -p "$(dirname "$file")"
  printf '%s\n' "$CHROMIUM_POLICIES" | "${as_root[@]}" tee "$file" >/dev/null
  echo "install-system-deps: wrote $file"
}

# LibreOffice likewise: no tip of the day, no "first time" bar, no recovery dialog after a
# LibreOffice that died with its X server. Read with its own defaults (share/registry/*.xcd).
libreoffice_defaults() {
  local dir=/usr/lib/libreoffice/share/registry
  [ -d "$dir" ] || return 0
  "${as_root[@]}" tee "$dir/computer-gateway.xcd" >/dev/null <<'XCD'
<?xml version="1.0" encoding="UTF-8"?>
<oor:data xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:oor="http://openoffice.org/2001/registry">
  <dependency file="main"/>
  <oor:component-data oor:name="Common" oor:package="org.openoffice.Office">
    <node oor:name="Misc">
      <prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop>
      <prop oor:name="FirstRun" oor:op="fuse"><value>false</value></prop>
    </node>
  </oor:component-data>
  <oor:component-data oor:name="Setup" oor:package="org.openoffice">
    <node oor:name="Product">
      <prop oor:name="ooSetupLastVersion" oor:op="fuse"><value>99.0</value></prop>
    </node>
  </oor:component-data>
  <oor:component-data oor:name="Recovery" oor:package="org.openoffice.Office">
    <node oor:name="RecoveryInfo">
      <prop oor:name="Enabled" oor:op="fuse"><value>false</value></prop>
    </node>
  </oor:component-data>
</oor:data>
XCD
}

desktop_defaults() { firefox_policies; chromium_policies; libreoffice_defaults; }

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-system-deps: everything is installed"
  if $with_desktop; then desktop_defaults; fi
  exit 0
fi

echo "install-system-deps: installing ${missing[*]}"
apt_get update -qq

# Each package must have an installation candidate; say which do not, all at once.
unavailable=()
resolved=()
for package in "${missing[@]}"; do
  c=$(candidate "$package")
  if [ -n "$c" ] && [ "$c" != '(none)' ]; then resolved+=("$package"); continue; fi
  alt=$(alternative "$package")
  if [ -n "$alt" ]; then
    c=$(candidate "$alt")
    if [ -n "$c" ] && [ "$c" != '(none)' ]; then resolved+=("$alt"); continue; fi
  fi
  unavailable+=("$package")
done
if [ ${#unavailable[@]} -gt 0 ]; then
  echo "install-system-deps: error: no installation candidate in the apt sources for: ${unavailable[*]}" >&2
  exit 1
fi

if ! apt_get install -y -qq --no-install-recommends "${resolved[@]}"; then
  echo "install-system-deps: error: apt-get could not install: ${resolved[*]}" >&2
  exit 1
fi
# Confirm, by name, that every package really is there now.
failed=()
for package in "${resolved[@]}"; do installed "$package" || failed+=("$package"); done
if [ ${#failed[@]} -gt 0 ]; then
  echo "install-system-deps: error: still not installed after apt-get: ${failed[*]}" >&2
  exit 1
fi
if $with_desktop; then desktop_defaults; fi
echo "install-system-deps: done"
