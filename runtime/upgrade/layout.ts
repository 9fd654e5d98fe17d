// Where an installed gateway keeps its versions (deploy/install.sh writes the same layout):
//
//   /opt/tracker-gateway                  the `current` symlink: the version systemd runs
//   /opt/tracker-gateway-releases/
//     <version>-<id>/                     one directory per installed version (root-owned)
//     previous                            symlink: the version kept for one rollback
//     upgrade.json                        the journal of the last upgrade (readable by all:
//                                         `gateway status` and the fleet status report it)
//     upgrade.lock                        held while an upgrade runs (two never run at once)
//     upgrade.log                         what each upgrade did, appended
//     rollout-result.json                 how the last upgrade asked for by a rollout ended
//                                         (readable by all: the gateway reports it to HQ)
//     rollout-taken.json                  the rollout's request being run (left behind by a
//                                         runner cut off: the start-up check settles it)
//     incoming/                           0700: archives being verified and unpacked
//   /etc/tracker-gateway/release-keys/    *.pub: the release keys this box trusts
//
// All under an install root ('' on a box; a temp dir in tests, as install.sh --root).
import path from 'node:path'

export interface InstallLayout {
  root: string
  /** The `current` symlink (the unit's WorkingDirectory and ExecStart live under it). */
  current: string
  releases: string
  previous: string
  journal: string
  lock: string
  log: string
  /** Written by `gateway upgrade --queued` (queued.ts) for the gateway's rollout agent. */
  rolloutResult: string
  /** The request `gateway upgrade --queued` runs now (queued-record.ts). */
  rolloutTaken: string
  incoming: string
  keys: string
  /** The installed `gateway` command (runs as the gateway's user: backup, restore). */
  command: string
  node: string
  config: string
}

export function installLayout(root = process.env.GATEWAY_INSTALL_ROOT ?? ''): InstallLayout {
  const releases = path.join(root || '/', 'opt/tracker-gateway-releases')
  return {
    root,
    current: path.join(root || '/', 'opt/tracker-gateway'),
    releases,
    previous: path.join(releases, 'previous'),
    journal: path.join(releases, 'upgrade.json'),
    lock: path.join(releases, 'upgrade.lock'),
    log: path.join(releases, 'upgrade.log'),
    rolloutResult: path.join(releases, 'rollout-result.json'),
    rolloutTaken: path.join(releases, 'rollout-taken.json'),
    incoming: path.join(releases, 'incoming'),
    keys: path.join(root || '/', 'etc/tracker-gateway/release-keys'),
    command: path.join(root || '/', 'usr/local/bin/gateway'),
    node: path.join(root || '/', 'usr/local/lib/tracker-gateway/node/bin/node'),
    config: path.join(root || '/', 'etc/tracker-gateway/gateway.config.json'),
  }
}
