#!/usr/bin/env bash
# Opt-in, not part of `npm test` or CI (it needs root, debootstrap and a Debian mirror, and
# takes a few minutes): deploy/install.sh in a real Debian bookworm (a debootstrap chroot)
# with real apt-get, useradd, usermod, chown and runuser. Only systemctl is a stub (a chroot
# has no systemd), and Node comes from a local mirror built from this machine's Node 24
# binary (the chroot is x86-64; nodejs.org need not be reachable). Then: the gateway runs as
# `tracker`, the installed `gateway status` finds it from another directory, a second
# gateway on the data dir is refused, upgrade keeps config and data, `gateway upgrade` under a
# stand-in for systemd (scripts/chroot-upgrade-steps.sh: a good release, one that crashes at
# start, a bad signature, a rollback by hand, kill -9 at each step), uninstall keeps config
# and data, --purge removes them and the user.
# With --fresh-clone it then checks the README's promise on a machine with only Node: a
# clone of this checkout, `npm install`, and `npm test` for the browser, fleet and install
# tests after Chromium, Mosquitto and xz were purged (the pretest installs them with apt-get).
#
#   sudo scripts/test-install-chroot.sh [--fresh-clone] [DIR]   (default DIR /var/tmp/tracker-gateway-chroot, kept for the next run)
set -euo pipefail
fresh_clone=0
if [ "${1:-}" = --fresh-clone ]; then fresh_clone=1; shift; fi
[ "$(id -u)" = 0 ] || { echo "test-install-chroot: run as root (chroot, mount, debootstrap)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "test-install-chroot: needs debootstrap: apt-get install -y debootstrap" >&2; exit 2; }
src=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
dir=${1:-/var/tmp/tracker-gateway-chroot}
node_bin=$(readlink -f "$src/node_modules/.bin/node")
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
version=$("$node_bin" -p 'process.versions.node')
name=node-v$version-linux-x64

step() { echo "== $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=scripts/chroot-upgrade-steps.sh
. "$src/scripts/chroot-upgrade-steps.sh"
# CAs this host trusts beyond Node's own (a TLS-inspecting proxy): npm in the chroot trusts them too.
extra_ca=()
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then extra_ca=(NODE_EXTRA_CA_CERTS=/root/host-extra-ca.crt); fi
run() { chroot "$dir" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "${extra_ca[@]}" "$@"; }

if [ ! -x "$dir/usr/bin/apt-get" ]; then
  step "debootstrap bookworm into $dir"
  debootstrap --variant=minbase bookworm "$dir" http://deb.debian.org/debian >/dev/null
fi
gateway_pid=''
cleanup() {
  [ -n "$gateway_pid" ] && kill "$gateway_pid" 2>/dev/null || true
  # The stand-in for systemd and its gateway, if a failed step left them running.
  upgrade_power_cut 2>/dev/null || true
  umount "$dir/proc" "$dir/dev" 2>/dev/null || true
  rm -rf "$dir/opt/node" "$dir/root/fresh"
  upgrade_cleanup
}
trap cleanup EXIT
mount -t proc proc "$dir/proc"
mount --bind /dev "$dir/dev"
cp /etc/resolv.conf "$dir/etc/resolv.conf"
if [ ${#extra_ca[@]} -gt 0 ]; then cp "$NODE_EXTRA_CA_CERTS" "$dir/root/host-extra-ca.crt"; fi

step "a Node mirror from $node_bin (v$version) and npm from $npm_dir"
tree=$(mktemp -d)
mkdir -p "$tree/$name/bin" "$tree/$name/lib/node_modules" "$dir/root/node-mirror"
cp "$node_bin" "$tree/$name/bin/node"
cp -R "$npm_dir" "$tree/$name/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$tree/$name/bin/npm"
tar -C "$tree" -cf - "$name" | xz -1 -T0 >"$dir/root/node-mirror/$name.tar.xz"
(cd "$dir/root/node-mirror" && sha256sum "$name.tar.xz" >SHASUMS256.txt)
rm -rf "$tree"

step "the checkout's tracked files into /root/src"
rm -rf "$dir/root/src"
mkdir -p "$dir/root/src"
(cd "$src" && git ls-files -z | xargs -0 cp --parents -t "$dir/root/src")
mkdir -p "$dir/usr/local/sbin"
rm -f "$dir/usr/local/sbin/systemctl"
printf '#!/bin/sh\necho "systemctl $*" >>/var/log/systemctl-calls\n' >"$dir/usr/local/sbin/systemctl"
chmod 0755 "$dir/usr/local/sbin/systemctl"
rm -f "$dir/var/log/systemctl-calls"

# Runs the installed gateway as tracker (as the unit would) and waits until the installed
# `gateway status`, run by root from /tmp, finds it; its answer goes to $dir/root/status.
start_gateway() {
  chroot "$dir" /usr/bin/env -i PATH=/usr/bin:/bin LANG=C.UTF-8 setpriv --reuid=tracker --regid=tracker --init-groups \
    /usr/local/lib/tracker-gateway/node/bin/node --disable-warning=ExperimentalWarning /opt/tracker-gateway/runtime/cli.ts \
    start --port 0 --config /etc/tracker-gateway/gateway.config.json >"$dir/root/gateway.log" 2>&1 &
  gateway_pid=$!
  for _ in $(seq 1 60); do
    if run sh -c 'cd /tmp && gateway status' >"$dir/root/status" 2>&1; then return 0; fi
    sleep 0.5
  done
  cat "$dir/root/gateway.log" "$dir/root/status" >&2
  fail "the installed gateway did not come up"
}
stop_gateway() { kill "$gateway_pid"; wait "$gateway_pid" || true; gateway_pid=''; }

upgrade_make_releases
upgrade_copy_releases

# A fresh install each run (a failed run may have left one).
run bash /root/src/deploy/install.sh uninstall --purge >/dev/null 2>&1 || true

step "install"
run bash /root/src/deploy/install.sh --node-dist /root/node-mirror --release-key /root/release-keys/chain.pub
run id tracker | grep -q dialout || fail "tracker user missing or not in dialout"
[ "$(run stat -c '%a %U' /var/lib/tracker-gateway)" = "700 tracker" ] || fail "data dir not 0700 tracker"
[ "$(run stat -c '%a %U %G' /etc/tracker-gateway/gateway.config.json)" = "640 root tracker" ] || fail "config not 0640 root:tracker"
grep -q 'systemctl enable --now tracker-gateway' "$dir/var/log/systemctl-calls" || fail "service not enabled"

step "the gateway runs as tracker; gateway status finds it from /tmp"
# No mDNS from a test on this machine's network.
echo '{"port":8000,"dataDir":"/var/lib/tracker-gateway","radio":{"kind":"simulated"},"mdns":{"enabled":false}}' >"$dir/etc/tracker-gateway/gateway.config.json"
start_gateway
status=$(cat "$dir/root/status")
echo "$status"
port=$(sed -nE 's/^gateway running: PID [0-9]+, port ([0-9]+),.*/\1/p' <<<"$status")
[ -n "$port" ] || fail "no port in: $status"
curl -fsS -o /dev/null "http://127.0.0.1:$port/" || fail "the board does not answer on $port"
grep -q '"msg":"board: http://' "$dir/root/gateway.log" || fail "no board address in the log"
second=$(run gateway start --port 0 2>&1) && fail "a second gateway on the data dir started"
grep -q "is in use by the gateway with PID" <<<"$second" || fail "second gateway: $second"
echo "kept" >"$dir/var/lib/tracker-gateway/kept.txt"
stop_gateway

step "upgrade keeps config and data"
run bash /root/src/deploy/install.sh upgrade --node-dist /root/node-mirror
grep -q '"enabled":false' "$dir/etc/tracker-gateway/gateway.config.json" || fail "upgrade replaced the config"
[ "$(cat "$dir/var/lib/tracker-gateway/kept.txt")" = kept ] || fail "upgrade lost data"
start_gateway
stop_gateway

upgrade_chroot_tests
# The rollbacks restored a backup: what the data dir held (kept.txt too) went into before-restore-<time>/.
echo "kept" >"$dir/var/lib/tracker-gateway/kept.txt"

step "uninstall keeps config and data; --purge removes them and the user"
run bash /root/src/deploy/install.sh uninstall
[ ! -e "$dir/opt/tracker-gateway" ] && [ ! -e "$dir/usr/local/bin/gateway" ] || fail "uninstall left the app"
[ -e "$dir/var/lib/tracker-gateway/kept.txt" ] && [ -e "$dir/etc/tracker-gateway/gateway.config.json" ] || fail "uninstall removed data or config"
run bash /root/src/deploy/install.sh uninstall --purge
[ ! -e "$dir/var/lib/tracker-gateway" ] && [ ! -e "$dir/etc/tracker-gateway" ] || fail "--purge left data or config"
run id tracker >/dev/null 2>&1 && fail "--purge left the tracker user"
echo "PASS: install, run, status, refusal, upgrade, gateway upgrade, uninstall in Debian $(cat "$dir/etc/debian_version") (${SECONDS} s)"
[ "$fresh_clone" = 1 ] || exit 0

step "a fresh clone on a machine with only Node: npm install, npm test (browser, fleet, install)"
run apt-get purge -y -qq chromium mosquitto xz-utils >/dev/null 2>&1 || true
rm -rf "$dir/opt/node" "$dir/root/fresh"
mkdir -p "$dir/opt/node"
tar -xJf "$dir/root/node-mirror/$name.tar.xz" -C "$dir/opt/node" --strip-components=1
git clone -q "$src" "$dir/root/fresh"
(cd "$src" && git ls-files -m -o --exclude-standard -z | xargs -0 -r cp --parents -t "$dir/root/fresh")
run env PATH=/opt/node/bin:/usr/sbin:/usr/bin:/sbin:/bin sh -c \
  'cd /root/fresh && npm install --no-audit --no-fund >/dev/null && npm test -- tests/browser/board.test.ts tests/lib/fleet/tail.test.ts tests/deploy/install.test.ts --disable-coverage' \
  >"$dir/root/fresh-test.log" 2>&1 || { tail -50 "$dir/root/fresh-test.log" >&2; fail "npm test in a fresh clone"; }
grep -q "installing Debian's chromium mosquitto xz-utils with apt-get" "$dir/root/fresh-test.log" || fail "the pretest did not install the packages"
echo "PASS: a fresh clone's npm install && npm test, Chromium, Mosquitto and xz installed by the pretest"
