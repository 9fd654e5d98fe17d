// Starts one headquarters instance: PostgreSQL (schema created when missing), the ingest
// from the broker, the HTTP host serving HQ's manifest and chain board (HTTPS with the
// certificate of hq.config.json `tls`, through the gateway's own secure server), the live updates,
// the alert timer and the replay timer (asking sites for what HQ missed). It serves with
// the broker down (the board shows what is stored) and keeps trying; with PostgreSQL down,
// ingest waits (nothing is acknowledged) and the API answers 503.
import { fleetTopics } from '../../lib/fleet/config.ts'
import { AlertWebhooks } from '../../lib/hq/alert-webhooks.ts'
import { evaluateAlerts } from '../../lib/hq/alerts.ts'
import type { HqConfig } from '../../lib/hq/config.ts'
import { Ingest } from '../../lib/hq/ingest.ts'
import { acknowledging, heartbeat } from '../../lib/hq/instances.ts'
import { purgeTombstones } from '../../lib/hq/maintenance.ts'
import { hqExposition, type ReplayCounts } from '../../lib/hq/metrics.ts'
import { planReplays } from '../../lib/hq/replay.ts'
import { ensureSchema } from '../../lib/hq/schema.ts'
import { HqTokens } from '../../lib/hq/tokens.ts'
import { createLogger, type Logger } from '../../lib/kernel/log.ts'
import { DurationHistograms } from '../../lib/kernel/metrics-text.ts'
import { openDatabase, type Database } from '../../lib/store/postgres.ts'
import { createHttpHost } from '../host/http.ts'
import type { HqManifestEntry } from './function-types.ts'
import { HqLive } from './live.ts'
import { buildHqRouter } from './router.ts'
import { hqServices } from './services.ts'
import { readFileSync } from 'node:fs'
import { driveRollouts, markPublished, pendingPublications } from '../../lib/hq/rollouts.ts'
import { parseTrustedKey } from '../../lib/release/signature.ts'
import { followCertificate, readHqCertificate } from './tls.ts'

export interface HqInstance {
  port: number
  /** https when hq.config.json names a certificate (`tls`), else http. */
  scheme: 'http' | 'https'
  db: Database
  ingest: Ingest
  live: HqLive
  /** Runs one alert evaluation and delivery round now (the timer does it every checkIntervalMs). */
  checkAlerts(): Promise<void>
  /** Runs one round of the rollout driver now (the timer does it every rollout.checkIntervalMs). */
  driveRollout(): Promise<void>
  /** Runs one round of replay requests now (the timer does it every replay.checkIntervalMs). */
  checkReplays(): Promise<void>
  stop(): Promise<void>
}

export interface StartHqOptions {
  config: HqConfig
  log?: Logger
  manifest?: HqManifestEntry[]
}

export async function startHq(options: StartHqOptions): Promise<HqInstance> {
  const { config } = options
  const log = options.log ?? createLogger()
  const manifest = options.manifest ?? (await import('../../functions/_hq_manifest.gen.ts')).manifest
  // The chain's release keys, read once, before anything is opened: a key file that is missing or not an Ed25519 public key stops the start.
  const trustedKeys = config.releases.keys.map((file) => parseTrustedKey(file, readFileSync(file, 'utf8')))
  // So is a certificate that cannot be read, is not the key's, or is not valid now.
  const certificate = config.tls ? readHqCertificate(config.tls) : undefined
  warnAboutPublicUrl(config, log)
  // Instances apply the same sites' rows: one frozen (SIGSTOP, a paused VM) inside its batch
  // transaction would hold their locks, and every other instance, for as long as it is frozen.
  // PostgreSQL ends such a session after 3 s (the frozen batch, never acknowledged, comes back).
  const db = openDatabase(config.postgresUrl, {
    max: config.postgresPoolSize,
    applicationName: `hq-${config.instanceId}`,
    idleInTransactionTimeoutMs: 3000,
  })
  await ensureSchema(db)
  const tokens = new HqTokens(db)
  const ingest = new Ingest({ config, db, log })
  const replays: ReplayCounts = { requests: 0, lostRanges: 0 }
  const requestDurations = new DurationHistograms()
  const metrics = { exposition: () => hqExposition({ db, config, ingest: ingest.status(), sites: ingest.sites(), replays, requestDurations }) }
  let rolling: Promise<void> | undefined
  let checkAlerts: () => Promise<void> = async () => undefined
  const driveRollout = () =>
    (rolling ??= (async () => {
      try {
        const { halted } = await driveRollouts(db)
        for (const id of halted) log.warn({ rollout: id }, 'hq rollout halted: a site failed its upgrade')
        // Published after the commit; what is not published now is published by the next round.
        if (config.releases.publicUrl) {
          for (const publication of await pendingPublications(db, config.releases.publicUrl)) {
            const topic = fleetTopics(config.topicPrefix, publication.siteId).rollout
            await ingest
              .publish(topic, publication.payload === null ? '' : JSON.stringify(publication.payload), 5000, true)
              .then(() => markPublished(db, publication))
              .then(() => log.info({ rollout: publication.rolloutId, site: publication.siteId, action: publication.action }, 'hq rollout: site told'))
              .catch((error: unknown) => log.warn({ err: error, site: publication.siteId }, 'hq rollout: command not published yet'))
          }
        } else log.warn('hq rollout: releases.publicUrl is not set in hq.config.json: the sites cannot be told where to download')
        if (halted.length) await checkAlerts()
      } catch (error) {
        log.warn({ err: error }, 'hq rollout: round failed')
      } finally {
        rolling = undefined
      }
    })())
  const services = hqServices(db, config, () => ingest.status(), metrics, { trustedKeys, kick: driveRollout })
  const router = buildHqRouter({ manifest, services, tokens, log, requestDurations })
  // An upload of a release may take minutes on a slow line (the gateway's 15 s would cut it).
  const host = createHttpHost(router, log, { requestTimeoutMs: 15 * 60_000, tls: certificate !== undefined })
  // With a certificate, HQ answers only over TLS: its plain server is never listening.
  const server = certificate ? host.secureServer! : host.server
  if (certificate) host.setCertificate(certificate)
  const stopFollowing = config.tls && certificate ? followCertificate(config.tls, certificate, (pair) => host.setCertificate(pair), log) : undefined
  const live = new HqLive(db, tokens, log)
  live.attach(server)
  await live.start()
  const port = await (certificate ? host.listenSecure(config.port, config.host) : host.listen(config.port, config.host))
  ingest.start()

  const webhooks = new AlertWebhooks(db, config.alerts, log)
  let checking: Promise<void> | undefined
  checkAlerts = () =>
    (checking ??= (async () => {
      try {
        const { raised, cleared } = await db.transaction((tx) => evaluateAlerts(tx, config.alerts))
        for (const alert of raised) log.warn({ alert }, 'hq alert raised')
        for (const alert of cleared) log.info({ alert }, 'hq alert cleared')
        while ((await webhooks.deliverDue()) > 0);
      } catch (error) {
        log.warn({ err: error }, 'hq alerts: check failed')
      } finally {
        checking = undefined
      }
    })())
  const alertTimer = setInterval(() => void checkAlerts(), config.alerts.checkIntervalMs)
  alertTimer.unref()
  let replaying: Promise<void> | undefined
  const checkReplays = () =>
    (replaying ??= (async () => {
      try {
        const plan = await db.transaction((tx) => planReplays(tx, config.replay, config.alerts.lostHours))
        replays.lostRanges += plan.lost.length
        for (const lost of plan.lost) log.warn({ ...lost }, 'hq replay: changes the site can no longer replay are lost')
        // Published after the commit: a request that does not get out is sent again after retrySeconds.
        for (const request of plan.requests) {
          await ingest
            .publish(fleetTopics(config.topicPrefix, request.siteId).replay, JSON.stringify({ from: request.from, to: request.to }))
            .then(() => {
              replays.requests++
              log.info({ ...request }, 'hq replay: asked the site for what is missing')
            })
            .catch((error: unknown) => log.warn({ err: error, ...request }, 'hq replay: request not sent'))
        }
        if (plan.lost.length) await checkAlerts()
      } catch (error) {
        log.warn({ err: error }, 'hq replay: check failed')
      } finally {
        replaying = undefined
      }
    })())
  const rolloutTimer = setInterval(() => void driveRollout(), config.rollout.checkIntervalMs)
  rolloutTimer.unref()
  const replayTimer = config.replay.enabled ? setInterval(() => void checkReplays(), config.replay.checkIntervalMs) : undefined
  replayTimer?.unref()
  // The heartbeat, a third of the silence that raises the alert (at most every 5 s).
  let beatBatches = -1
  const beat = async () => {
    const status = ingest.status()
    const ok = acknowledging({ subscribed: status.subscribed, pending: status.pending, batches: status.applied.batches }, beatBatches)
    beatBatches = status.applied.batches
    if (ok) await heartbeat(db, config.instanceId).catch((error: unknown) => log.warn({ err: error }, 'hq: heartbeat failed'))
  }
  const beatTimer = setInterval(() => void beat(), Math.min(5000, (config.alerts.instanceSilentSeconds * 1000) / 3))
  beatTimer.unref()
  const purgeTimer = setInterval(() => void purgeTombstones(db).catch((error: unknown) => log.warn({ err: error }, 'hq: tombstone purge failed')), 10 * 60_000)
  purgeTimer.unref()
  const scheme = certificate ? 'https' : 'http'
  log.info({ port, scheme, instanceId: config.instanceId, broker: config.broker.url }, 'hq listening')

  return {
    port,
    scheme,
    db,
    ingest,
    live,
    checkAlerts,
    checkReplays,
    driveRollout,
    async stop() {
      clearInterval(alertTimer)
      clearInterval(rolloutTimer)
      await rolling
      clearInterval(replayTimer)
      await replaying
      clearInterval(purgeTimer)
      clearInterval(beatTimer)
      stopFollowing?.()
      await checking
      await ingest.stop()
      await live.stop()
      await host.close(2000)
      webhooks.close()
      await db.close()
    },
  }
}

/** What the sites are told to download from, said at start when it is not what HQ serves or not private. */
function warnAboutPublicUrl(config: HqConfig, log: Logger): void {
  const url = config.releases.publicUrl
  if (url?.startsWith('http:')) {
    log.warn(
      { publicUrl: url },
      config.tls
        ? 'hq: releases.publicUrl is plain http while HQ serves HTTPS: the sites cannot download unless something in front of HQ answers plain http'
        : "hq: releases.publicUrl is plain http: each release's download secret travels in clear (the archive itself is checked by its signature at each site)",
    )
  }
}
