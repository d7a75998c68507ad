#!/usr/bin/env bash
# A three-node Docker Swarm on this one machine, for the fleet's swarm backend (fleet/backends/swarm/)
# and its real-engine test (test/docker/fleet-swarm.ts), and for anyone who wants to try it.
#
#   scripts/swarm.sh up     three dockerd, a swarm of them (every node a manager), the desktop image
#                           on each; prints the env
#   scripts/swarm.sh down   ends and removes everything `up` made, also after a node's daemon was
#                           killed; running it again (or with nothing up) does nothing and succeeds
#   scripts/swarm.sh env    the DOCKER_HOST of each node, as `up` prints it
#
# Each node is Debian's dockerd in a network namespace of its own (entered with nsenter --net:
# `ip netns exec` remounts /sys, and dockerd then fails with "Devices cgroup isn't mounted"), with
# its own --data-root, --exec-root, --pidfile and socket under one directory, and its own
# supervised containerd. The namespaces' veths hang on one bridge; the host has an address on it
# (the fleet reaches desktops published on a node's address). The host engine's FORWARD policy
# drops bridged traffic, so one rule lets the bridge talk to itself. Root only.
#
# Environment: SWARM_DIR (default /tmp/cgsw-swarm), SWARM_IMAGE (default computer-gateway:0.1.0,
# taken from the host engine; empty: none), SWARM_NODES (default 3).
set -euo pipefail

DIR=${SWARM_DIR:-/tmp/cgsw-swarm}
IMAGE=${SWARM_IMAGE-computer-gateway:0.1.0}
NODES=${SWARM_NODES:-3}
BRIDGE=cgsw-br
NET=10.213.0
HOST_ADDR=$NET.1
# Every name this script makes starts with cgsw, so `down` finds exactly what `up` made.
ns() { echo "cgsw$1"; }
addr() { echo "$NET.$((10 + $1))"; }
sock() { echo "$DIR/node$1/docker.sock"; }
on() { local n=$1; shift; docker -H "unix://$(sock "$n")" "$@"; }

say() { echo "swarm: $*" >&2; }
die() { say "$*"; exit 1; }

# Processes to end: every one in a namespace of ours (daemons, containerd, shims) and every
# descendant of a shim whose containerd lives under $DIR (the desktops' own processes, which
# have namespaces of their own and outlive a killed daemon as they would a dead host).
our_pids() {
  local n pid
  for n in $(seq 1 "$NODES"); do
    [ -e "/run/netns/$(ns "$n")" ] && ip netns pids "$(ns "$n")"
  done
  for pid in $(pgrep -f -- "[c]ontainerd-shim.*$DIR/" || true); do
    echo "$pid"
    descendants "$pid"
  done
}
descendants() {
  local child
  for child in $(pgrep -P "$1" || true); do echo "$child"; descendants "$child"; done
}

down() {
  local n pids mount
  # The daemons first, gracefully (a live swarm leaves its tasks); then whatever is left, by PID.
  for n in $(seq 1 "$NODES"); do
    [ -f "$DIR/node$n/docker.pid" ] && kill -TERM "$(cat "$DIR/node$n/docker.pid")" 2>/dev/null || true
  done
  for _ in $(seq 1 20); do
    pids=
    for n in $(seq 1 "$NODES"); do
      [ -f "$DIR/node$n/docker.pid" ] && kill -0 "$(cat "$DIR/node$n/docker.pid")" 2>/dev/null && pids=1
    done
    [ -z "$pids" ] && break
    sleep 0.5
  done
  for _ in 1 2 3; do
    pids=$(our_pids | sort -u)
    [ -z "$pids" ] && break
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null || true
    sleep 0.5
  done
  [ -z "$(our_pids)" ] || die "processes would not end: $(our_pids | tr '\n' ' ')"
  # What the daemons and their containers mounted under $DIR (overlays, shm, netns files), deepest first.
  if [ -d "$DIR" ]; then
    while read -r mount; do
      umount "$mount" 2>/dev/null || umount -l "$mount"
    done < <(awk -v dir="$DIR/" 'index($2, dir) == 1 { print $2 }' /proc/self/mounts | sort -r)
  fi
  # The cgroups the daemons made their containers under (--cgroup-parent cgswN), emptied by now, deepest first.
  local group
  while read -r group; do
    rmdir "$group" 2>/dev/null || true
  done < <(find /sys/fs/cgroup -maxdepth 2 -type d -name 'cgsw[0-9]*' -exec find {} -depth -type d \; 2>/dev/null)
  for n in $(seq 1 "$NODES"); do
    ip link del "cgsw-h$n" 2>/dev/null || true
    ip netns del "$(ns "$n")" 2>/dev/null || true
  done
  ip link del "$BRIDGE" 2>/dev/null || true
  while iptables -C FORWARD -i "$BRIDGE" -o "$BRIDGE" -j ACCEPT 2>/dev/null; do
    iptables -D FORWARD -i "$BRIDGE" -o "$BRIDGE" -j ACCEPT
  done
  rm -rf "$DIR"
  say "down: nothing left"
}

env_lines() {
  local n
  for n in $(seq 1 "$NODES"); do echo "SWARM_NODE${n}_HOST=unix://$(sock "$n") SWARM_NODE${n}_ADDR=$(addr "$n")"; done
  echo "DOCKER_HOST=unix://$(sock 1)"
  echo "SWARM_SOCKET_TEMPLATE=$DIR/nodes/{{.Node.ID}}/docker.sock"
}

up() {
  [ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, a bridge, dockerd)"
  for tool in dockerd docker nsenter ip iptables; do command -v "$tool" >/dev/null || die "$tool is not installed"; done
  [ -d "$DIR" ] && die "$DIR exists: run '$0 down' first"
  mkdir -p "$DIR"
  trap 'say "up failed; tearing down"; down' ERR
  ip link add "$BRIDGE" type bridge
  ip addr add "$HOST_ADDR/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  iptables -I FORWARD -i "$BRIDGE" -o "$BRIDGE" -j ACCEPT
  local n
  for n in $(seq 1 "$NODES"); do
    ip netns add "$(ns "$n")"
    ip link add "cgsw-h$n" type veth peer name "cgsw-n$n"
    ip link set "cgsw-h$n" master "$BRIDGE" up
    ip link set "cgsw-n$n" netns "$(ns "$n")"
    nsenter --net="/run/netns/$(ns "$n")" sh -c "ip link set lo up && ip addr add $(addr "$n")/24 dev cgsw-n$n && ip link set cgsw-n$n up"
    mkdir -p "$DIR/node$n"
    # setsid: the daemon outlives this script, in a session of its own.
    # --no-new-privileges: Swarm services cannot ask for it before API 1.44 (Debian's engine is 1.41),
    # so every container of the node gets it from its daemon, as fleet/README.md asks of operators.
    nsenter --net="/run/netns/$(ns "$n")" setsid dockerd \
      --data-root "$DIR/node$n/data" --exec-root "$DIR/node$n/exec" --pidfile "$DIR/node$n/docker.pid" \
      --host "unix://$(sock "$n")" --cgroup-parent "cgsw$n" --no-new-privileges \
      >"$DIR/node$n/dockerd.log" 2>&1 </dev/null &
  done
  for n in $(seq 1 "$NODES"); do
    for _ in $(seq 1 120); do on "$n" info >/dev/null 2>&1 && break; sleep 0.5; done
    on "$n" info >/dev/null 2>&1 || { tail -n 20 "$DIR/node$n/dockerd.log" >&2; die "node $n's dockerd did not start (its log above)"; }
  done
  on 1 swarm init --advertise-addr "$(addr 1)" >/dev/null
  # Every node a manager: three managers keep a quorum when one is lost, so the swarm still
  # schedules (and the fleet's service moves) with any one node gone, node 1 included.
  local token
  token=$(on 1 swarm join-token -q manager)
  for n in $(seq 2 "$NODES"); do on "$n" swarm join --token "$token" "$(addr 1):2377" >/dev/null; done
  # Each node's socket also under its node id, so a service mounts its own node's socket with
  # Swarm's template $DIR/nodes/{{.Node.ID}}/docker.sock (the nodes share one hostname).
  mkdir -p "$DIR/nodes"
  for n in $(seq 1 "$NODES"); do ln -s "$DIR/node$n" "$DIR/nodes/$(on "$n" info -f '{{.Swarm.NodeID}}')"; done
  if [ -n "$IMAGE" ]; then
    say "loading $IMAGE on $NODES nodes"
    # One save streamed to every node's load at once: no copy of the image on disk.
    local loads=()
    for n in $(seq 1 "$NODES"); do loads+=(">(docker -H unix://$(sock "$n") load -q >/dev/null)"); done
    eval "docker save \"\$IMAGE\" | tee ${loads[*]} >/dev/null"
    # tee returns before the loads behind its process substitutions: each node is asked until it has the image.
    for n in $(seq 1 "$NODES"); do
      for _ in $(seq 1 600); do on "$n" image inspect "$IMAGE" >/dev/null 2>&1 && break; sleep 0.5; done
      on "$n" image inspect "$IMAGE" >/dev/null 2>&1 || die "node $n did not load $IMAGE"
    done
  fi
  trap - ERR
  on 1 node ls >&2
  env_lines
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  env) env_lines ;;
  *) echo "usage: $0 up|down|env" >&2; exit 2 ;;
esac
