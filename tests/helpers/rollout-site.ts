// A site of a chain for rollout tests that need many upgrades and no install: the gateway's
// fleet side (its bridge: the retained status, the last will, the rollout topic) and its real
// rollout agent (runtime/workers/rollout.ts), wired as runtime/workers/fleet.ts wires them
// (the agent attached and started before the bridge connects), in one process that says it
// runs `version`. What the gateway around them does is left out (orders, radio, HTTP), and
// so is the upgrade: a test plays root's `gateway upgrade --queued` (rolloutSite() below):
// when the agent queues a request, it checks the archive and signature the agent downloaded,
// writes the result where root would, and starts the site again at the new version.
//
//   node rollout-site.ts SETTINGS_JSON     (started by rolloutSite(); SIGTERM: a clean stop)
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fleetConfigSchema } from '../../lib/fleet/config.ts'
import { FleetService } from '../../lib/fleet/service.ts'
import { SystemClock } from '../../lib/kernel/clock.ts'
import { createLogger } from '../../lib/kernel/log.ts'
import { Store } from '../../lib/store/db.ts'
import { installLayout } from '../../runtime/upgrade/layout.ts'
import { requestFile, type UpgradeRequest } from '../../runtime/upgrade/queued-record.ts'
import { RolloutAgent } from '../../runtime/workers/rollout.ts'
import { until } from './until.ts'

interface SiteSettings {
  siteId: string
  version: string
  brokerUrl: string
  topicPrefix: string
  /** The gateway's data dir (its rollout/ is the agent's). */
  dataDir: string
  /** The install root (root's rollout-result.json is under it, as on a box). */
  installRoot: string
}

export interface RolloutSite {
  siteId: string
  version: () => string
  dataDir: string
  running: () => boolean
  /** The gateway started (again), at the version it runs. */
  start(): Promise<void>
  /** A clean stop (SIGTERM): its status says offline. */
  stop(): Promise<void>
  /** SIGKILL: the broker publishes its last will. */
  kill(): Promise<void>
  /** The upgrades root ran for it: version, archive checksum, signature. */
  upgrades: { version: string; sha256: string; signature: unknown }[]
  close(): Promise<void>
}

/**
 * A site process and, in this process, root's side of its upgrades. `release(version)` tells
 * what an archive of that version must hold (its checksum, its signature) and whether its
 * upgrade fails (rolled back).
 */
export function rolloutSite(
  settings: Omit<SiteSettings, 'installRoot' | 'dataDir'> & { dir: string },
  release: (version: string) => { sha256: string; signature: unknown; fails?: boolean },
): RolloutSite {
  const dataDir = path.join(settings.dir, 'data')
  const installRoot = path.join(settings.dir, 'root')
  const layout = installLayout(installRoot)
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  mkdirSync(layout.releases, { recursive: true })
  let version = settings.version
  let child: ChildProcess | null = null
  let exited: Promise<void> = Promise.resolve()
  let closed = false
  const output: string[] = []
  const upgrades: RolloutSite['upgrades'] = []

  const start = async () => {
    if (child) return
    const site: SiteSettings = { ...settings, version, dataDir, installRoot }
    const started = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', import.meta.filename, JSON.stringify(site)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child = started
    let text = ''
    started.stdout!.on('data', (chunk) => (text += chunk))
    started.stderr!.on('data', (chunk) => output.push(String(chunk)))
    exited = new Promise((resolve) =>
      started.once('exit', () => {
        if (child === started) child = null
        resolve()
      }),
    )
    await until(() => text.includes('site ready') || child !== started, `site ${settings.siteId} to start`)
    if (child !== started) throw new Error(`site ${settings.siteId} exited: ${output.join('')}`)
  }
  const end = async (signal: NodeJS.Signals) => {
    const running = child
    if (!running) return
    running.kill(signal)
    await exited
  }

  // Root's side: the path unit sees request.json; `gateway upgrade --queued` takes it, upgrades, writes the result.
  let upgrading = false
  const watcher = setInterval(() => {
    const file = requestFile(dataDir)
    if (upgrading || closed || !existsSync(file)) return
    upgrading = true
    void (async () => {
      const request = JSON.parse(readFileSync(file, 'utf8')) as UpgradeRequest
      rmSync(file)
      const archive = path.join(dataDir, 'rollout', path.basename(request.archive))
      const expected = release(request.version)
      const sha256 = createHash('sha256').update(readFileSync(archive)).digest('hex')
      const signature = JSON.parse(readFileSync(`${archive}.sig`, 'utf8')) as unknown
      upgrades.push({ version: request.version, sha256, signature })
      const from = version
      let ok = sha256 === expected.sha256 && JSON.stringify(signature) === JSON.stringify(expected.signature)
      let message = ok ? `upgraded ${from} -> ${request.version}` : `refused: the archive or its signature is not the release's`
      // The upgrade restarts the gateway into the new version (and back, when its health check fails).
      await end('SIGTERM')
      if (ok && expected.fails) {
        ok = false
        message = `upgrade to ${request.version} failed and was rolled back to ${from}: ${request.version} failed its health check`
      } else if (ok) version = request.version
      writeFileSync(
        layout.rolloutResult,
        JSON.stringify({ rolloutId: request.rolloutId, attempt: request.attempt, version: request.version, ok, message, at: new Date().toISOString() }),
      )
      if (!closed) await start()
    })().finally(() => (upgrading = false))
  }, 50)

  return {
    siteId: settings.siteId,
    version: () => version,
    dataDir,
    running: () => child !== null,
    start,
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
    upgrades,
    close: async () => {
      closed = true
      clearInterval(watcher)
      await end('SIGKILL')
    },
  }
}

if (import.meta.main) {
  const settings = JSON.parse(process.argv[2]!) as SiteSettings
  const config = fleetConfigSchema.parse({
    enabled: true,
    brokerUrl: settings.brokerUrl,
    siteId: settings.siteId,
    topicPrefix: settings.topicPrefix,
    reconnectMs: 50,
    maxReconnectMs: 500,
    statusIntervalMs: 1000,
    rollout: { bandwidthKiBps: 100_000 },
  })
  const log = createLogger({ level: 'warn' })
  const fleet = await FleetService.open({
    config,
    store: new Store(),
    identity: { deviceId: `TG-${settings.siteId}`, version: settings.version, startedAt: Date.now() },
    clock: new SystemClock(),
    log,
    timezone: () => 'UTC',
  })
  const agent = new RolloutAgent({
    config: config.rollout,
    dataDir: settings.dataDir,
    layout: installLayout(settings.installRoot),
    runningVersion: settings.version,
    timezone: () => 'UTC',
    activeOrders: () => 0,
    changed: () => fleet.statusChanged(),
    log,
    pollMs: 100,
  })
  fleet.attachRollout(agent)
  agent.start()
  fleet.start()
  process.once('SIGTERM', () => {
    void agent
      .stop()
      .then(() => fleet.stop())
      .then(() => process.exit(0))
  })
  console.log('site ready')
}
