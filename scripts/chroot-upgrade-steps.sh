# `gateway upgrade` in a Debian chroot (issue 46), sourced by scripts/test-install-chroot.sh
# (x86-64) and scripts/test-install-chroot-arm64.sh (arm64 under qemu): the steps are the same
# on both, only the caller's chroot differs. The caller defines src (this checkout), dir (the
# chroot), run (a command in the chroot as root), step and fail.
#
# upgrade_make_releases, before install.sh runs: a release key pair (install.sh is given the
# public key with --release-key), and signed release archives of this checkout built by
# scripts/make-release.sh from a scratch clone, at higher versions: a good one, one that
# crashes at start after writing into the data dir (and says its data format changed), one
# signed by a key the box does not trust, one damaged after signing, and one per step of the
# kill test.
#
# upgrade_chroot_tests, after install.sh: systemd replaced by the smallest stand-in that
# restarts the service (tests/helpers/unit-supervisor.ts runs the installed unit file: its
# ExecStartPre `gateway upgrade --recover` as root, ExecStart as tracker, Restart=always after
# RestartSec; /usr/local/sbin/systemctl reaches it), then as root in the chroot:
#   good release         gateway upgrade: health check passes, the old version kept as previous
#   crashing release     rolls back by itself: the order taken before is there, what the crash
#                        wrote is gone (backup restored), the reason in `gateway status`
#   bad signature        refused (and a damaged archive): nothing changed
#   rollback by hand     gateway upgrade --rollback: the first version runs again
#   kill -9              at each step of the journal, and at rolling-back once the backup
#                        was restored (the upgrade frozen, then everything in the chroot
#                        killed at once, as a power cut), then a boot: the box answers
#                        on the version it came from or the one it went to, with the order,
#                        no upgrade left half done; then the next upgrade runs.
# UPGRADE_HEALTH_TIMEOUT (seconds, default 120) is the upgrade's --health-timeout (arm64 under
# qemu starts slowly); UPGRADE_KILL_STEPS (default all) names the steps to kill at.

# The journal's steps, and `restored`: at rolling-back once the backup was restored (a
# crashing release of another data format), the data dir's content already moved aside.
upgrade_kill_steps=(preparing backed-up prepared switching switched restarted rolling-back restored committed)

# This checkout's version, $1 patch levels up.
upgrade_bump() {
  local base
  base=$(sed -nE 's/^  "version": "([0-9]+\.[0-9]+\.[0-9]+)",?$/\1/p' "$src/package.json")
  echo "${base%.*}.$((${base##*.} + $1))"
}

# One signed release archive from the scratch clone's base commit: VERSION KIND (good or
# crash) KEYFILE -> $upgrade_work/out/tracker-gateway-VERSION.tar.gz and .sig.
upgrade_release() {
  local version=$1 kind=$2 key=$3 clone=$upgrade_work/clone
  git -C "$clone" checkout -q -B "release-$version" base
  "$upgrade_node" -e '
    const fs = require("node:fs")
    const [file, version, kind] = process.argv.slice(1)
    const pkg = JSON.parse(fs.readFileSync(file + "/package.json", "utf8"))
    pkg.version = version
    if (kind === "crash") pkg.trackerGateway = { dataFormat: 2 }
    fs.writeFileSync(file + "/package.json", JSON.stringify(pkg, null, 2) + "\n")
    if (kind === "crash") {
      // Exits at `gateway start` after writing into the data dir (a migration cut short).
      const entry = file + "/bin/gateway.js"
      const source = fs.readFileSync(entry, "utf8")
      const at = source.indexOf("\nconst root")
      const crash = "\nif (process.argv.includes(\"start\")) {\n  (await import(\"node:fs\")).writeFileSync(process.env.GATEWAY_DATA_DIR + \"/migrated-by-" + version + "\", \"half\")\n  console.error(\"this release cannot start\")\n  process.exit(3)\n}\n"
      fs.writeFileSync(entry, source.slice(0, at) + crash + source.slice(at))
    }' "$clone" "$version" "$kind"
  git -C "$clone" -c user.name=chroot-test -c user.email=chroot-test@localhost commit -q -am "release $version ($kind)"
  PATH="$(dirname "$upgrade_node"):$PATH" bash "$clone/scripts/make-release.sh" --key "$key" "$upgrade_work/out" >/dev/null ||
    fail "make-release.sh $version"
}

upgrade_make_releases() {
  step "upgrade: a release key, and signed releases built by scripts/make-release.sh"
  upgrade_node=$src/node_modules/.bin/node
  upgrade_work=$(mktemp -d /var/tmp/tracker-gateway-releases.XXXXXX)
  mkdir -p "$upgrade_work/keys" "$upgrade_work/out"
  "$upgrade_node" --disable-warning=ExperimentalWarning "$src/scripts/release-key.ts" keygen "$upgrade_work/keys" chain >/dev/null
  "$upgrade_node" --disable-warning=ExperimentalWarning "$src/scripts/release-key.ts" keygen "$upgrade_work/keys" stranger >/dev/null
  # The checkout as it is (uncommitted changes too, as the chroot's /root/src), committed in a clone.
  git clone -q --shared "$src" "$upgrade_work/clone"
  (cd "$src" && git ls-files -z -m -o --exclude-standard) | while IFS= read -r -d '' file; do
    if [ -e "$src/$file" ]; then mkdir -p "$(dirname "$upgrade_work/clone/$file")" && cp "$src/$file" "$upgrade_work/clone/$file"; else rm -f "$upgrade_work/clone/$file"; fi
  done
  git -C "$upgrade_work/clone" add -A
  git -C "$upgrade_work/clone" -c user.name=chroot-test -c user.email=chroot-test@localhost commit -q --allow-empty -m base
  git -C "$upgrade_work/clone" branch -q base
  upgrade_good=$(upgrade_bump 1) upgrade_crash=$(upgrade_bump 2) upgrade_stranger=$(upgrade_bump 3) upgrade_damaged=$(upgrade_bump 4)
  upgrade_release "$upgrade_good" good "$upgrade_work/keys/chain.key"
  upgrade_release "$upgrade_crash" crash "$upgrade_work/keys/chain.key"
  upgrade_release "$upgrade_stranger" good "$upgrade_work/keys/stranger.key"
  upgrade_release "$upgrade_damaged" good "$upgrade_work/keys/chain.key"
  printf 'damage' | dd of="$upgrade_work/out/tracker-gateway-$upgrade_damaged.tar.gz" bs=1 seek=2000 conv=notrunc status=none
  local i=0 target
  for target in "${upgrade_kill_steps[@]}" next; do
    if [ "$target" = rolling-back ] || [ "$target" = restored ]; then upgrade_release "$(upgrade_bump $((10 + i)))" crash "$upgrade_work/keys/chain.key"; else upgrade_release "$(upgrade_bump $((10 + i)))" good "$upgrade_work/keys/chain.key"; fi
    i=$((i + 1))
  done
  echo "releases $upgrade_good (good), $upgrade_crash (crashes at start), $upgrade_stranger (another key), $upgrade_damaged (damaged), and one per kill step"
}

# The releases and the public key into the chroot (/root/releases, /root/release-keys/chain.pub).
upgrade_copy_releases() {
  rm -rf "$dir/root/releases" "$dir/root/release-keys"
  mkdir -p "$dir/root/releases" "$dir/root/release-keys"
  cp "$upgrade_work/out"/*.tar.gz "$upgrade_work/out"/*.sig "$dir/root/releases/"
  cp "$upgrade_work/keys/chain.pub" "$dir/root/release-keys/chain.pub"
}

# For the caller's exit: the scratch clone and keys go.
upgrade_cleanup() { if [ -n "${upgrade_work:-}" ]; then rm -rf "$upgrade_work"; fi; }

# A boot: the stand-in started as systemd starts the enabled unit at boot (its ExecStartPre
# first), with /usr/local/sbin/systemctl leading to it.
upgrade_boot() {
  rm -rf "$dir/run/unit-supervisor"
  mkdir -p "$dir/run/unit-supervisor"
  rm -f "$dir/usr/local/sbin/systemctl"
  ln -s /run/unit-supervisor/bin/systemctl "$dir/usr/local/sbin/systemctl"
  setsid chroot "$dir" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    /usr/local/lib/tracker-gateway/node/bin/node --disable-warning=ExperimentalWarning /root/src/tests/helpers/unit-supervisor.ts \
    /etc/systemd/system/tracker-gateway.service /run/unit-supervisor /var/log/tracker-gateway.log --start >>"$dir/var/log/unit-supervisor.log" 2>&1 </dev/null &
}

# Everything running in the chroot killed at once (SIGKILL), as a power cut does.
upgrade_power_cut() {
  local proc left
  for _ in $(seq 1 100); do
    left=0
    for proc in /proc/[0-9]*; do
      if [ "$(readlink "$proc/root" 2>/dev/null)" = "$dir" ]; then kill -9 "${proc#/proc/}" 2>/dev/null || true; left=1; fi
    done
    [ "$left" = 0 ] && return 0
    sleep 0.1
  done
  fail "processes in $dir outlived kill -9"
}

# The version the box's gateway answers with (GET /api/v2/capabilities on the port its data
# dir names), waiting up to $1 seconds; fails when it does not answer.
upgrade_port() { sed -nE 's/.*"port": *([0-9]+).*/\1/p' "$dir/var/lib/tracker-gateway/gateway.owner.json" 2>/dev/null; }
upgrade_answers() {
  local port body
  for _ in $(seq 1 $((${1:-300} * 2))); do
    port=$(upgrade_port)
    if [ -n "$port" ] && body=$(curl -fsS --max-time 5 "http://127.0.0.1:$port/api/v2/capabilities" 2>/dev/null); then
      sed -nE 's/.*"appBundleVersion": *"([^"]+)".*/\1/p' <<<"$body"
      return 0
    fi
    sleep 0.5
  done
  tail -30 "$dir/var/log/tracker-gateway.log" >&2
  fail "the gateway did not answer within ${1:-300} s"
}
upgrade_has_order() { curl -fsS --max-time 10 "http://127.0.0.1:$(upgrade_port)/api/v1/activeorders" | grep -Eq '"name": *"?41"?[,}]'; }
upgrade_current() { readlink "$dir/opt/tracker-gateway"; }
upgrade_previous() { readlink "$dir/opt/tracker-gateway-releases/previous" 2>/dev/null || echo none; }
upgrade_status() { run sh -c 'cd /tmp && gateway status' 2>&1; }
upgrade_main_pid() { run systemctl show tracker-gateway --property=MainPID; }
upgrade_pass() { echo "PASS: upgrade in the chroot: $*"; }
upgrade_gateway() { run gateway upgrade "$@" --health-timeout "${UPGRADE_HEALTH_TIMEOUT:-120}" --health-stable 3; }

upgrade_chroot_tests() {
  local base good_dir first_dir out rc before after status i target version seen answered from started journal
  local t0
  t0=$(date +%s)
  base=$(sed -nE 's/^  "version": "([^"]+)",?$/\1/p' "$src/package.json")
  journal=$dir/opt/tracker-gateway-releases/upgrade.json
  step "upgrade: the service under a stand-in for systemd (the unit's ExecStartPre, ExecStart as tracker, Restart=always)"
  [ -f "$dir/etc/tracker-gateway/release-keys/chain.pub" ] || fail "install.sh did not install the release key"
  echo '{"port":0,"host":"127.0.0.1","dataDir":"/var/lib/tracker-gateway","radio":{"kind":"simulated"},"mdns":{"enabled":false}}' >"$dir/etc/tracker-gateway/gateway.config.json"
  rm -f "$dir/var/log/tracker-gateway.log" "$dir/var/log/unit-supervisor.log"
  upgrade_boot
  [ "$(upgrade_answers 600)" = "$base" ] || fail "the installed $base does not answer"
  [ "$(run systemctl is-active tracker-gateway)" = active ] || fail "systemctl is-active: not active"
  [ "$(awk '/^Uid:/ { print $2 }' "/proc/$(upgrade_main_pid | sed 's/MainPID=//')/status")" = "$(run id -u tracker)" ] || fail "the service does not run as tracker"
  curl -fsS --max-time 10 -o /dev/null -X POST -H 'content-type: application/json' -d '{"name":41,"locationName":3}' \
    "http://127.0.0.1:$(upgrade_port)/api/v1/activeorders?dummy_tracker_address=true" || fail "cannot create an order"
  upgrade_has_order || fail "the order is not listed"
  first_dir=$(upgrade_current)
  upgrade_pass "$base runs as tracker under the stand-in; order 41 taken"

  step "upgrade: to the good release $upgrade_good"
  started=$(date +%s)
  out=$(upgrade_gateway "/root/releases/tracker-gateway-$upgrade_good.tar.gz" 2>&1) || { echo "$out" >&2; fail "the upgrade to $upgrade_good failed"; }
  grep -q "upgraded $base -> $upgrade_good; $base kept for gateway upgrade --rollback" <<<"$out" || { echo "$out" >&2; fail "no upgraded line"; }
  [ "$(upgrade_answers 60)" = "$upgrade_good" ] || fail "$upgrade_good does not answer"
  good_dir=$(upgrade_current)
  [[ "$good_dir" == "tracker-gateway-releases/$upgrade_good-"* ]] || fail "current is $good_dir"
  [ "$(upgrade_previous)" = "$(basename "$first_dir")" ] && [ -f "$dir/opt/tracker-gateway-releases/$(upgrade_previous)/package.json" ] ||
    fail "previous is $(upgrade_previous), not $first_dir (or it is gone)"
  upgrade_has_order || fail "the order is gone after the upgrade"
  upgrade_status | grep -q "last upgrade from $base to $upgrade_good: done" || fail "gateway status: $(upgrade_status)"
  upgrade_pass "$base -> $upgrade_good: health check passed, $base kept as previous, order kept ($(($(date +%s) - started)) s)"

  step "upgrade: to $upgrade_crash, which crashes at start"
  started=$(date +%s)
  rc=0
  out=$(upgrade_gateway "/root/releases/tracker-gateway-$upgrade_crash.tar.gz" 2>&1) || rc=$?
  [ "$rc" = 1 ] || { echo "$out" >&2; fail "the upgrade to the crashing $upgrade_crash exited $rc, not 1"; }
  grep -q "failed and was rolled back to $upgrade_good" <<<"$out" || { echo "$out" >&2; fail "no rolled-back line"; }
  [ "$(upgrade_answers 60)" = "$upgrade_good" ] || fail "$upgrade_good does not answer after the rollback"
  [ "$(upgrade_current)" = "$good_dir" ] || fail "current is $(upgrade_current) after the rollback"
  [ "$(upgrade_previous)" = "$(basename "$first_dir")" ] || fail "previous changed by the rollback"
  upgrade_has_order || fail "the order is gone after the rollback"
  [ ! -e "$dir/var/lib/tracker-gateway/migrated-by-$upgrade_crash" ] || fail "what $upgrade_crash wrote is still in the data dir (backup not restored)"
  status=$(upgrade_status)
  grep -q "last upgrade from $upgrade_good to $upgrade_crash FAILED and was rolled back .*: $upgrade_crash failed its health check" <<<"$status" || fail "gateway status: $status"
  upgrade_pass "$upgrade_good -> $upgrade_crash: rolled back by itself, order kept, backup restored; gateway status: $(grep -o 'last upgrade.*' <<<"$status" | cut -c1-200) ($(($(date +%s) - started)) s)"

  step "upgrade: a bad signature and a damaged archive are refused, nothing changed"
  before="$(upgrade_current) $(upgrade_previous) $(sha256sum <"$journal") $(upgrade_main_pid)"
  rc=0
  out=$(upgrade_gateway "/root/releases/tracker-gateway-$upgrade_stranger.tar.gz" 2>&1) || rc=$?
  [ "$rc" = 1 ] && grep -q "not made by any trusted release key" <<<"$out" || { echo "$out" >&2; fail "the archive signed by another key was not refused (exit $rc)"; }
  rc=0
  out=$(upgrade_gateway "/root/releases/tracker-gateway-$upgrade_damaged.tar.gz" 2>&1) || rc=$?
  [ "$rc" = 1 ] && grep -q "damaged or not the one signed" <<<"$out" || { echo "$out" >&2; fail "the damaged archive was not refused (exit $rc)"; }
  after="$(upgrade_current) $(upgrade_previous) $(sha256sum <"$journal") $(upgrade_main_pid)"
  [ "$before" = "$after" ] || fail "a refusal changed the box: $before -> $after"
  [ "$(upgrade_answers 10)" = "$upgrade_good" ] || fail "$upgrade_good no longer answers"
  [ -z "$(ls "$dir/opt/tracker-gateway-releases" | grep -E "^($upgrade_stranger|$upgrade_damaged)")" ] || fail "a refused version left a directory"
  upgrade_pass "$upgrade_stranger (another key) and $upgrade_damaged (damaged) refused: same version, process, links and journal"

  step "upgrade: gateway upgrade --rollback by hand"
  out=$(run gateway upgrade --rollback --health-timeout "${UPGRADE_HEALTH_TIMEOUT:-120}" --health-stable 3 2>&1) || { echo "$out" >&2; fail "the rollback by hand failed"; }
  [ "$(upgrade_answers 60)" = "$base" ] || fail "$base does not answer after the rollback"
  [ "$(upgrade_current)" = "$first_dir" ] || fail "current is $(upgrade_current) after the rollback"
  upgrade_has_order || fail "the order is gone after the rollback by hand"
  upgrade_status | grep -q "last rollback from $upgrade_good to $base: done" || fail "gateway status: $(upgrade_status)"
  upgrade_pass "rolled back by hand to $base, order kept"

  i=0
  answered=$base
  for target in "${upgrade_kill_steps[@]}"; do
    version=$(upgrade_bump $((10 + i)))
    i=$((i + 1))
    if [ -n "${UPGRADE_KILL_STEPS:-}" ] && [ "$UPGRADE_KILL_STEPS" != all ] && [[ " $UPGRADE_KILL_STEPS " != *" $target "* ]]; then continue; fi
    step "upgrade: kill -9 at $target (upgrading $answered -> $version)"
    started=$(date +%s)
    setsid chroot "$dir" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
      gateway upgrade "/root/releases/tracker-gateway-$version.tar.gz" --health-timeout "${UPGRADE_HEALTH_TIMEOUT:-120}" --health-stable 3 \
      >"$dir/root/upgrade-kill-$target.log" 2>&1 </dev/null &
    local upgrade_pid=$! order aside
    order=$(upgrade_step_index "${target/restored/rolling-back}")
    aside=$(upgrade_moved_aside)
    seen=''
    for _ in $(seq 1 18000); do
      if grep -q "\"version\": \"$version\"" "$journal" 2>/dev/null; then
        seen=$(sed -nE 's/^  "step": "([a-z-]+)".*/\1/p' "$journal")
        if [ "$target" = restored ]; then
          [ "$seen" != rolling-back ] || [ "$(upgrade_moved_aside)" = "$aside" ] || break
        elif [ "$(upgrade_step_index "$seen")" -ge "$order" ]; then break; fi
      fi
      kill -0 "$upgrade_pid" 2>/dev/null || break
      sleep 0.05
    done
    # Frozen first (the upgrade and what it started: its process group), so the step it is
    # killed at is the one the journal says now, not a later one reached while the power cut
    # goes through /proc.
    kill -STOP -- "-$upgrade_pid" 2>/dev/null || true
    if grep -q "\"version\": \"$version\"" "$journal" 2>/dev/null; then seen=$(sed -nE 's/^  "step": "([a-z-]+)".*/\1/p' "$journal"); fi
    if [ "$target" = restored ] && [ "$seen" = rolling-back ] && [ "$(upgrade_moved_aside)" != "$aside" ]; then seen='rolling-back, backup restored'; fi
    upgrade_power_cut
    wait "$upgrade_pid" 2>/dev/null || true
    upgrade_boot
    from=$answered
    answered=$(upgrade_answers 600)
    [ "$answered" = "$from" ] || [ "$answered" = "$version" ] || fail "killed at ${seen:-before the journal}: $answered answers, neither $from (it came from) nor $version"
    case $target in rolling-back | restored) [ "$answered" = "$from" ] || fail "killed while rolling back: the crashing $version runs" ;; esac
    upgrade_has_order || fail "killed at ${seen:-before the journal}: the order is gone"
    status=$(upgrade_status)
    grep -q "in progress" <<<"$status" && fail "killed at ${seen:-before the journal}: an upgrade is left half done: $status"
    grep -Eq '"step": "(committed|rolled-back|abandoned)"' "$journal" || fail "killed at ${seen:-before the journal}: the journal ends at $(sed -nE 's/^  "step": "([a-z-]+)".*/\1/p' "$journal")"
    grep -q "\"version\": \"$answered\"" "$dir/opt/tracker-gateway/package.json" || fail "the current link does not name $answered"
    upgrade_pass "killed at ${seen:-before the journal} (aimed at $target): the box started on $answered, order kept, journal $(sed -nE 's/^  "step": "([a-z-]+)".*/\1/p' "$journal") ($(($(date +%s) - started)) s)"
  done

  version=$(upgrade_bump $((10 + i)))
  step "upgrade: the next upgrade runs ($answered -> $version)"
  out=$(upgrade_gateway "/root/releases/tracker-gateway-$version.tar.gz" 2>&1) || { echo "$out" >&2; fail "the upgrade after the kills failed"; }
  [ "$(upgrade_answers 60)" = "$version" ] || fail "$version does not answer"
  upgrade_has_order || fail "the order is gone"
  upgrade_pass "after the kills, $answered -> $version upgrades (no lock or leftovers in the way)"

  upgrade_power_cut
  rm -f "$dir/usr/local/sbin/systemctl"
  printf '#!/bin/sh\necho "systemctl $*" >>/var/log/systemctl-calls\n' >"$dir/usr/local/sbin/systemctl"
  chmod 0755 "$dir/usr/local/sbin/systemctl"
  upgrade_pass "all steps in $(($(date +%s) - t0)) s"
}

# The data dirs a restore moved aside (before-restore-<time>/ in the data dir; the next
# restore moves the earlier ones into its own, so the name changes, not the count).
upgrade_moved_aside() { find "$dir/var/lib/tracker-gateway" -maxdepth 1 -name 'before-restore-*' -printf '%f ' 2>/dev/null; }

upgrade_step_index() {
  local n=0 name
  for name in preparing backed-up prepared switching switched restarted rolling-back committed rolled-back abandoned rollback-failed; do
    [ "$name" = "$1" ] && { echo "$n"; return; }
    n=$((n + 1))
  done
  echo -1
}
