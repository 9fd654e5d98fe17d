// The site's rollout agent (runtime/workers/rollout.ts) across interruptions: random sequences
// of events drawn from a seed, checked after each against what an operator would state.
//
// The agent is the real one, in this process, on a throwaway data dir. Around it:
// - HQ is the real state machine (lib/hq/rollout-machine.ts) driven as lib/hq/rollouts.ts
//   drives it, one site, its commands kept as the broker keeps a retained message (the latest
//   one, delivered on each connection and live while connected), its view of the site from
//   the site's reports while connected;
// - HQ's archive route is an HTTP server that lets a piece through only when told ("a chunk"),
//   and drops every connection while the line is cut;
// - root's side is the real `gateway upgrade --queued` (runQueued, started whenever
//   request.json is there and none runs, as the path unit does) and the real start-up check
//   (recover, at each boot), over a throwaway install root; the upgrade itself is a stand-in
//   that writes the journal's steps, restarts the gateway into the new version, and goes on
//   only when told ("progress"); some releases fail (rolled back).
// Events: a chunk, progress, the broker connection made, the line cut and back, the gateway
// killed and started again (its .part's last write torn, as a power cut may leave it), a
// power cut of the whole box (the upgrade runner too; a finished archive may come back short),
// an operator's pause, resume and cancel, orders opening and closing the window, 20 minutes
// passing, a new rollout once one is over.
// Invariants: never two upgrades at once, and never the same attempt twice; a site told to
// stand down (a pause, a halt, a cancel) before it was upgrading never starts that upgrade;
// the archive an upgrade takes, and the one a site waiting for its window holds, has the
// announced checksum; nothing in the rollout dir is open to another user; and, once the line,
// the window and the operator allow, the rollout ends and the site agrees with HQ.
//
// npm test runs a few seeds (printed); ROLLOUT_MODEL_SEED=S repeats one, ROLLOUT_MODEL_RUNS=N
// and ROLLOUT_MODEL_STEPS=N run longer.
import { createHash, randomBytes } from 'node:crypto'
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs'
import http from 'node:http'
import type net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { fleetConfigSchema } from '../../../lib/fleet/config.ts'
import type { RolloutCommand } from '../../../lib/fleet/messages.ts'
import { advance, finalRolloutStates, operate, RolloutTransitionError, type MachineRollout, type MachineSite } from '../../../lib/hq/rollout-machine.ts'
import { reportFor } from '../../../lib/hq/rollouts.ts'
import { readJournal, writeJournal, type UpgradeJournal } from '../../../runtime/upgrade/journal.ts'
import type { UpgradeLock } from '../../../runtime/upgrade/lock.ts'
import { readTaken, requestFile, rolloutDir, runQueued, type UpgradeRequest } from '../../../runtime/upgrade/queued.ts'
import { recover } from '../../../runtime/upgrade/upgrade.ts'
import { RolloutAgent } from '../../../runtime/workers/rollout.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { queuedBox } from '../../helpers/queued-box.ts'
import { until } from '../../helpers/until.ts'
import { seeded } from '../../helpers/seeded.ts'

const runs = Number(process.env.ROLLOUT_MODEL_RUNS ?? 4)
const steps = Number(process.env.ROLLOUT_MODEL_STEPS ?? 40)
const firstSeed = Number(process.env.ROLLOUT_MODEL_SEED ?? Math.floor(Math.random() * 2 ** 31))

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

interface Release {
  version: string
  bytes: Buffer
  sha256: string
  /** Its upgrade fails its health check and is rolled back. */
  bad: boolean
}

/** HQ's archive route, a piece at a time when told, and nothing while the line is cut. */
async function archiveServer(releases: Map<string, Release>) {
  let permits = 0
  let cut = false
  const parked: { serve: () => void; done: boolean }[] = []
  const sockets = new Set<net.Socket>()
  const server = http.createServer((req, res) => {
    if (cut) return void req.socket.destroy()
    const release = releases.get(decodeURIComponent(String(req.url).split('/').at(-2)!))
    const range = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range))
    if (!release || !range || req.headers['x-release-secret'] !== 'secret') return void res.writeHead(404).end()
    const entry = {
      done: false,
      serve: () => {
        entry.done = true
        res.writeHead(206).end(release.bytes.subarray(Number(range[1]), Number(range[2]) + 1))
      },
    }
    res.on('close', () => (entry.done = true))
    if (permits > 0) {
      permits--
      entry.serve()
    } else parked.push(entry)
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const waiting = () => {
    while (parked[0]?.done) parked.shift()
    return parked.length
  }
  return {
    url: (version: string) => `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/api/hq/releases/${version}/archive`,
    chunk() {
      if (waiting()) parked.shift()!.serve()
      else permits = Math.min(permits + 1, 3)
    },
    cut() {
      cut = true
      for (const socket of sockets) socket.destroy()
    },
    restore: () => void (cut = false),
    waiting,
    close: () => {
      for (const socket of sockets) socket.destroy()
      return new Promise((resolve) => server.close(resolve))
    },
  }
}

class Violation extends Error {
  override name = 'Violation'
}

async function runModel(seed: number, log: string[]): Promise<void> {
  const random = seeded(seed)
  const root = mkdtempSync(path.join(tmpdir(), 'rollout-model-'))
  // The stand-in upgrade below never reaches the service manager.
  const { layout, dataDir, ctx } = queuedBox(root, { stableMs: 0 })
  const dir = rolloutDir(dataDir)
  const releases = new Map<string, Release>()
  const server = await archiveServer(releases)
  let now = Date.now()
  let orders = 0
  let network = true
  let connected = false
  let siteVersion = '0.1.0'
  const config = fleetConfigSchema.parse({ rollout: { bandwidthKiBps: 1_000_000, window: { noActiveOrders: true } } }).rollout
  const newAgent = () =>
    new RolloutAgent({
      config,
      dataDir,
      layout,
      runningVersion: siteVersion,
      timezone: () => 'UTC',
      activeOrders: () => orders,
      changed: () => {},
      log: memoryLogger('fatal').log,
      pollMs: 2,
      now: () => now,
    })
  let agent = newAgent()
  agent.start()
  // The gateway stopped and started again (by the upgrade, a kill, a power cut), one at a
  // time: `meanwhile` runs while it is down.
  let swapping: Promise<void> = Promise.resolve()
  const restart = (meanwhile: () => void | Promise<void> = () => {}) =>
    (swapping = swapping.then(async () => {
      await agent.stop()
      connected = false
      await meanwhile()
      agent = newAgent()
      agent.start()
    }))

  // HQ: the machine, the retained command, what it last heard from the site.
  let rollout: MachineRollout | null = null
  let site: MachineSite | null = null
  let retained: RolloutCommand | null = null
  let heard: string | null = null
  let heardVersion = siteVersion
  const forbidden = new Set<string>()
  const requested = new Set<string>()
  const key = (rolloutId: number, attempt: number) => `${rolloutId}/${attempt}`

  /** What the site keeps now (the truth, not HQ's view). */
  const truth = () => agent.report() as { rolloutId: number; attempt: number; state: string } | null

  const deliver = (command: RolloutCommand) => {
    log.push(
      `  deliver ${JSON.stringify({ ...command, ...(command.action === 'upgrade' ? { signature: undefined, secret: undefined, url: undefined } : {}) })}`,
    )
    agent.handle(Buffer.from(JSON.stringify(command)))
  }
  const publish = (commands: { action: string; attempt?: number }[]) => {
    for (const command of commands) {
      const r = rollout!
      const release = [...releases.values()].find((one) => one.version === r.version)!
      if (command.action === 'stand-down') {
        // Stood down before it was upgrading (by what the site keeps): that attempt must never start.
        const kept = truth()
        const committed = kept?.rolloutId === r.id && kept.attempt === site!.attempt && ['upgrading', 'done', 'failed'].includes(kept.state)
        if (!committed) forbidden.add(key(r.id, site!.attempt))
        retained = { rolloutId: r.id, action: 'stand-down' }
      } else {
        retained = {
          rolloutId: r.id,
          attempt: command.attempt!,
          action: 'upgrade',
          version: release.version,
          sha256: release.sha256,
          size: release.bytes.length,
          url: server.url(release.version),
          secret: 'secret',
          signature: { stand: 'in' },
        }
      }
      if (connected) deliver(retained)
    }
  }
  const hqRound = () => {
    if (connected) {
      const report = agent.report()
      if (report) heard = JSON.stringify(report)
      heardVersion = siteVersion
    }
    if (!rollout || !site) return
    const wasDone = rollout.state === 'done'
    const step = advance(rollout, [{ ...site, online: connected, version: heardVersion, report: reportFor(heard, rollout.id, site.attempt) }], now)
    rollout = step.rollout
    site = step.sites[0]!
    publish(step.commands)
    // Done: the retained command is cleared (an empty message, which the site ignores).
    if (!wasDone && rollout.state === 'done') retained = null
  }
  const operator = (action: 'pause' | 'resume' | 'cancel') => {
    if (!rollout || !site) return
    try {
      const step = operate(rollout, [site], action)
      rollout = step.rollout
      site = step.sites[0]!
      publish(step.commands)
    } catch (error) {
      if (!(error instanceof RolloutTransitionError)) throw error
    }
  }
  let nextRelease = 2
  const newRollout = () => {
    if (rollout && !finalRolloutStates.has(rollout.state)) return
    const version = `0.${nextRelease++}.0`
    const bytes = randomBytes(1024 * 1024 + Math.floor(random() * 1.5 * 1024 * 1024))
    releases.set(version, { version, bytes, sha256: sha256(bytes), bad: random() < 0.25 })
    rollout = {
      id: (rollout?.id ?? 0) + 1,
      version,
      state: 'running',
      waves: [['site']],
      currentWave: 0,
      waveStartedAt: null,
      waveDoneAt: null,
      soakMs: 0,
      offline: 'catch-up',
      reason: null,
    }
    site = { siteId: 'site', wave: 0, state: 'pending', reason: null, attempt: 1, online: connected, version: heardVersion, report: null }
    log.push(`  rollout ${rollout.id} of ${version}${releases.get(version)!.bad ? ' (a bad release)' : ''}`)
  }

  // Root's side: the runner (runQueued) and the stand-in upgrade it runs.
  type Runner = { lock: UpgradeLock | null; gate: (() => void) | null }
  let runner: Runner | null = null
  let failure: Error | null = null
  const violation = (message: string) => {
    const error = new Violation(message)
    failure ??= error
    return error
  }
  /** Goes on when told; a runner killed with the box never goes on (nor writes anything). */
  const progress = async (mine: Runner) => {
    await new Promise<void>((resolve) => (mine.gate = resolve))
    await alive(mine)
  }
  const alive = (mine: Runner) => (runner === mine ? Promise.resolve() : new Promise<void>(() => {}))
  const restartGateway = () => restart()
  const journalFor = (request: UpgradeRequest, step: UpgradeJournal['step']): UpgradeJournal => ({
    step,
    kind: 'upgrade',
    from: { version: siteVersion, dir: `${siteVersion}-x`, dataFormat: 1 },
    to: { version: request.version, dir: `${request.version}-x`, dataFormat: 1 },
    previous: null,
    backup: null,
    startedAt: new Date().toISOString(),
    updatedAt: '',
    reason: null,
  })
  const standInUpgrade = async (mine: Runner, options: { source: string; lock?: UpgradeLock }) => {
    mine.lock = options.lock ?? null
    const taken = (await readTaken(layout.rolloutTaken))!
    await alive(mine)
    const release = releases.get(taken.version)!
    if (!existsSync(options.source) || sha256(readFileSync(options.source)) !== release.sha256)
      throw violation(`the upgrade to ${taken.version} took an archive without the announced checksum`)
    const journal = journalFor(taken, 'preparing')
    const from = siteVersion
    writeJournal(layout.journal, journal)
    await progress(mine)
    journal.step = 'switched'
    writeJournal(layout.journal, journal)
    siteVersion = taken.version
    await restartGateway()
    await progress(mine)
    if (release.bad) {
      journal.step = 'rolling-back'
      writeJournal(layout.journal, journal)
      siteVersion = from
      await restartGateway()
      await alive(mine)
      journal.step = 'rolled-back'
      journal.reason = `${taken.version} failed its health check: a bad release`
      writeJournal(layout.journal, journal)
      throw new Error(`upgrade to ${taken.version} failed and was rolled back to ${from}: ${journal.reason}`)
    }
    journal.step = 'committed'
    writeJournal(layout.journal, journal)
    return `upgraded ${from} -> ${taken.version}`
  }
  /** As the path unit: the runner starts once request.json is there and none runs (not always at once). */
  const startRunner = (always = false) => {
    const file = requestFile(dataDir)
    if (runner || !existsSync(file) || (!always && random() < 0.4)) return
    const request = JSON.parse(readFileSync(file, 'utf8')) as UpgradeRequest
    const id = key(request.rolloutId, request.attempt)
    if (existsSync(layout.rolloutTaken)) throw violation(`a new upgrade (${id}) was queued while the last one taken has not ended`)
    if (requested.has(id)) throw violation(`the upgrade of attempt ${id} was queued twice`)
    if (forbidden.has(id)) throw violation(`the upgrade of attempt ${id} was queued after the site was told to stand down`)
    requested.add(id)
    log.push(`  upgrade ${id} queued`)
    const mine: Runner = { lock: null, gate: null }
    runner = mine
    void runQueued(ctx, (_ctx, options) => standInUpgrade(mine, options))
      .catch(() => undefined)
      .finally(() => {
        if (runner === mine) runner = null
      })
  }

  const checkFiles = () => {
    if (!existsSync(dir)) return
    const info = statSync(dir)
    if ((info.mode & 0o777) !== 0o700 || info.uid !== process.getuid!()) throw new Violation(`${dir} is open to others (${(info.mode & 0o777).toString(8)})`)
    for (const name of readdirSync(dir)) {
      const file = statSync(path.join(dir, name), { throwIfNoEntry: false })
      if (file && ((file.mode & 0o077) !== 0 || file.uid !== process.getuid!()))
        throw new Violation(`rollout/${name} is open to others (${(file.mode & 0o777).toString(8)})`)
    }
    const kept = truth()
    if (kept && (kept.state === 'waiting-for-window' || kept.state === 'upgrading') && !runner) {
      const release = [...releases.values()].find((one) => one.version === (kept as { version?: string }).version)!
      const archive = path.join(dir, `tracker-gateway-${release.version}.tar.gz`)
      if (existsSync(archive) && sha256(readFileSync(archive)) !== release.sha256)
        throw new Violation(`the site ${kept.state} holds an archive of ${release.version} without the announced checksum`)
    }
  }
  const fingerprint = () =>
    JSON.stringify([
      { ...agent.report(), at: undefined },
      existsSync(dir) ? readdirSync(dir).map((name) => [name, statSync(path.join(dir, name), { throwIfNoEntry: false })?.size]) : null,
      runner ? runner.gate !== null : null,
      existsSync(layout.rolloutTaken),
      statSync(layout.rolloutResult, { throwIfNoEntry: false })?.mtimeMs,
      server.waiting(),
      rollout?.state,
      site?.state,
    ])
  /** Runs the world until nothing moves (a few looks in a row alike); the invariants hold at each look. */
  const settle = async () => {
    let same = 0
    let last = ''
    for (let looks = 0; same < 4; looks++) {
      if (failure) throw failure
      startRunner()
      hqRound()
      const seen = fingerprint()
      same = seen === last ? same + 1 : 0
      last = seen
      if (looks > 20_000) throw new Error(`the model never settled: ${seen}`)
      await new Promise((resolve) => setTimeout(resolve, 3))
    }
    if (failure) throw failure
    checkFiles()
  }
  const powerCut = async () => {
    // (Once the runner is in the upgrade: the lock it holds before is not one this process can drop.)
    await until(() => runner === null || runner.lock !== null, 'the runner in its upgrade')
    await restart(async () => {
      if (runner) {
        // Killed with the box: its lock goes with the process, its promise never ends.
        runner.lock?.release()
        runner = null
      }
      tear()
      // A finished archive may come back short (no fsync before its rename): only before it is handed to an upgrade.
      const kept = truth()
      const archives = existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.tar.gz')) : []
      if (archives.length && kept && (kept.state === 'downloading' || kept.state === 'waiting-for-window') && random() < 0.3) {
        const file = path.join(dir, archives[0]!)
        truncateSync(file, Math.floor(statSync(file).size * random()))
        log.push(`  ${archives[0]} came back short`)
      }
      // The unit's start-up check, then the gateway on what it runs.
      const journal = readJournal(layout.journal)
      const said = await recover(ctx)
      if (said) log.push(`  start-up check: ${said}`)
      if (journal && !['committed', 'rolled-back', 'abandoned', 'rollback-failed'].includes(journal.step)) siteVersion = journal.from.version
    })
  }
  /** A kill may tear the .part's last write: bytes that are not the archive's at its end. */
  const tear = () => {
    const part = existsSync(dir) ? readdirSync(dir).find((name) => name.endsWith('.part')) : undefined
    if (part && random() < 0.5) {
      appendFileSync(path.join(dir, part), randomBytes(1 + Math.floor(random() * 4096)))
      log.push(`  ${part}: its last write torn`)
    }
  }

  const openGate = () => {
    const gate = runner?.gate
    if (!gate) return
    runner!.gate = null
    gate()
  }
  const connect = () => {
    if (!network || connected) return
    connected = true
    if (retained) deliver(retained)
  }
  const events: [string, number, () => void | Promise<void>][] = [
    ['chunk', 6, () => server.chunk()],
    ['progress', 4, () => openGate()],
    ['connect', 3, connect],
    [
      'line cut',
      1,
      () => {
        network = false
        if (connected) agent.disconnected()
        connected = false
        server.cut()
      },
    ],
    [
      'line back',
      2,
      () => {
        network = true
        server.restore()
      },
    ],
    [
      'gateway killed',
      1,
      () =>
        restart(() => {
          tear()
          // Killed after it kept 'upgrading' and before its request was written.
          if (truth()?.state === 'upgrading' && existsSync(requestFile(dataDir)) && !runner && random() < 0.5) {
            rmSync(requestFile(dataDir))
            log.push('  killed before its request was written')
          }
        }),
    ],
    ['power cut', 1, powerCut],
    ['pause', 1, () => operator('pause')],
    ['resume', 1.5, () => operator('resume')],
    ['cancel', 0.5, () => operator('cancel')],
    ['orders open', 1, () => void (orders = 1)],
    ['orders cleared', 1.5, () => void (orders = 0)],
    ['20 minutes pass', 1, () => void (now += 20 * 60_000)],
    ['new rollout', 1, newRollout],
  ]
  const total = events.reduce((sum, [, weight]) => sum + weight, 0)
  const draw = () => {
    let at = random() * total
    for (const event of events) if ((at -= event[1]) < 0) return event
    return events[0]!
  }

  try {
    newRollout()
    await settle()
    for (let i = 0; i < steps; i++) {
      const [name, , apply] = draw()
      log.push(`${i}: ${name}`)
      await apply()
      // Mostly the next event once nothing moves; sometimes while the agent is in the middle of something.
      if (random() < 0.3) await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 4)))
      else await settle()
    }
    // The line, the window and the operator allow: the rollout must end and the site agree.
    log.push('end: line back, connected, no order, resumed (a bad release cancelled)')
    network = true
    server.restore()
    orders = 0
    await until(async () => {
      if (failure) throw failure
      const r = rollout!
      const bad = releases.get(r.version)!.bad
      if (r.state === 'halted' || r.state === 'paused') {
        log.push(`  end: ${r.state} (${r.reason}), the site says ${JSON.stringify(truth())}: ${bad && r.state === 'halted' ? 'cancel' : 'resume'}`)
        operator(bad && r.state === 'halted' ? 'cancel' : 'resume')
      }
      connect()
      server.chunk()
      openGate()
      startRunner(true)
      hqRound()
      await new Promise((resolve) => setTimeout(resolve, 2))
      const kept = truth()
      return (
        finalRolloutStates.has(rollout!.state) &&
        !runner &&
        !existsSync(requestFile(dataDir)) &&
        (kept === null || ['done', 'failed', 'cancelled'].includes(kept.state))
      )
    }, 'the rollout to end once nothing holds it')
    checkFiles()
    const r = rollout!
    if (r.state === 'done' && siteVersion !== r.version) throw new Violation(`rollout ${r.id} of ${r.version} is done but the site runs ${siteVersion}`)
    if (r.state === 'done' && truth()?.state !== 'done') throw new Violation(`rollout ${r.id} is done but the site says ${truth()?.state}`)
    if (existsSync(layout.rolloutTaken)) throw new Violation('an upgrade taken was never settled')
  } finally {
    await agent.stop()
    await server.close()
    rmSync(root, { recursive: true, force: true })
  }
}

t.test('the rollout agent across interruptions keeps what an operator expects', async (t) => {
  for (let run = 0; run < runs; run++) {
    const seed = (firstSeed + run) >>> 0
    const log: string[] = []
    try {
      await runModel(seed, log)
      const count = (pattern: RegExp) => log.filter((line) => pattern.test(line)).length
      t.pass(
        `seed ${seed}: ${count(/^\d+: /)} events; ${count(/ upgrade .* queued/)} upgrades, ${count(/"stand-down"/)} stand-downs heard, ` +
          `${count(/: power cut$/)} power cuts, ${count(/last write torn|came back short|before its request was written/)} writes cut short`,
      )
    } catch (error) {
      t.fail(
        `seed ${seed} (ROLLOUT_MODEL_SEED=${seed} repeats it): ${(error as Error).message}\n${log
          .filter((line) => !line.startsWith('  deliver'))
          .slice(-40)
          .join('\n')}`,
      )
      break
    }
  }
})
