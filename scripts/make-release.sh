#!/usr/bin/env bash
# The release archive: how the software reaches a gateway box that cannot reach our
# repository. Built from this checkout's last commit (HEAD; uncommitted changes are not in
# it), holding what deploy/install.sh installs from and nothing else (no tests, no .git):
# tracker-gateway-<version>/ with bin, lib, runtime, functions, web, deploy, docs,
# package.json, package-lock.json, gateway.config.json and README.md. Copy it to the box,
# unpack it and run deploy/install.sh from there (docs/operations.md, step 3).
#
#   scripts/make-release.sh [--key FILE] [OUT_DIR]    (default: dist/ in the checkout)
#   -> OUT_DIR/tracker-gateway-<version>.tar.gz, its .sha256 and, with a signing key (--key
#      FILE or TRACKER_RELEASE_KEY=FILE), its detached Ed25519 signature .sig, which
#      `gateway upgrade` checks against the box's trusted keys (scripts/release-key.ts makes
#      the key pair; docs/operations.md, "Upgrade"). Without a key it warns: boxes refuse to
#      upgrade to an unsigned archive (install.sh still installs it by hand).
set -euo pipefail
key=${TRACKER_RELEASE_KEY:-}
if [ "${1:-}" = --key ]; then key=${2:?--key needs a file}; shift 2; fi
src=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
out=${1:-$src/dist}
parts=(bin lib runtime functions web deploy docs package.json package-lock.json gateway.config.json README.md)
version=$(sed -nE 's/^  "version": "([^"]+)",?$/\1/p' "$src/package.json")
[ -n "$version" ] || { echo "make-release: no version in $src/package.json" >&2; exit 1; }
name=tracker-gateway-$version
commit=$(git -C "$src" rev-parse --short HEAD) || { echo "make-release: $src is not a git checkout" >&2; exit 1; }
if [ -n "$(git -C "$src" status --porcelain -- "${parts[@]}")" ]; then
  echo "make-release: warning: uncommitted changes in the released files are not in the archive (it is commit $commit)" >&2
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
git -C "$src" archive --format=tar --prefix="$name/" HEAD -- "${parts[@]}" | gzip -9n >"$out/$name.tar.gz.partial"
mv "$out/$name.tar.gz.partial" "$out/$name.tar.gz"
(cd "$out" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
rm -f "$out/$name.tar.gz.sig"
if [ -n "$key" ]; then
  node=node
  [ -x "$src/node_modules/.bin/node" ] && node=$src/node_modules/.bin/node
  "$node" --disable-warning=ExperimentalWarning "$src/scripts/release-key.ts" sign "$out/$name.tar.gz" "$version" "$key" >/dev/null ||
    { echo "make-release: signing with $key failed" >&2; exit 1; }
else
  echo "make-release: warning: no signing key (--key FILE or TRACKER_RELEASE_KEY): the archive is unsigned and gateway upgrade refuses it" >&2
fi
echo "$out/$name.tar.gz (commit $commit)"
