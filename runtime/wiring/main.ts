// Composition root: config → data-dir lock → store and services → radio → paging scheduler →
// fleet → webhooks → http → ws → control socket → mDNS. SIGTERM/SIGINT stop everything in
// reverse and flush storage.
import type { Clock } from '../../lib/kernel/clock.ts'
import { GatewayClock } from '../../lib/kernel/gateway-clock.ts'
import type { GatewayConfig } from '../../lib/config.ts'
import { createLogger, type Logger } from '../../lib/kernel/log.ts'
import { restrictNewFiles } from '../../lib/store/private-files.ts'
import { registerButtonCommands } from '../cli/button-commands.ts'
import { registerTokenCommands } from '../cli/token-commands.ts'
import { registerRadioCommands } from '../cli/radio-commands.ts'
import { ControlServer } from '../control/control.ts'
import { fleetPart, rolloutPart } from '../workers/fleet.ts'
import { credentialedBy } from '../host/credentialed.ts'
import { createHttpHost } from '../host/http.ts'
import { TlsService, tlsPart } from '../host/tls/tls-service.ts'
import { registerTlsCommands } from '../cli/tls-commands.ts'
import { registerWebhookCommands } from '../cli/webhook-commands.ts'
import { webhookDispatcherPart } from '../workers/webhook-dispatcher.ts'
import { wsHubPart } from '../host/ws.ts'
import { startParts, type Part } from './lifecycle.ts'
import { checkManifest } from '../manifest/manifest.ts'
import { pagingPart, radioPart } from '../workers/orders-parts.ts'
import { isLoopbackHost, mdnsPart } from '../workers/mdns.ts'
import { unknownOpenRoutes } from '../host/auth.ts'
import { buildRouter, type GatewayRouter } from '../host/router.ts'
import type { ManifestEntry } from '../host/function-types.ts'
import { loadFunctionTable, SwappableRouter, watchFunctions } from '../manifest/dev-reload.ts'
import { buildServices, type Services } from './services.ts'
import { clockPart } from './clock-wiring.ts'
import { registerClockCommands } from '../cli/clock-commands.ts'
import type { FaultHook } from '../../lib/orders/fault.ts'
import { registerSimCommands } from '../cli/sim-commands.ts'
import { lockDataDir } from './data-dir-lock.ts'
import { announcePart, dataDirLockPart, listenError } from './process-parts.ts'
import { BackupService } from '../backup/backup-service.ts'
import { registerBackupCommands } from '../cli/backup-commands.ts'
import { backupSchedulePart } from '../workers/backup-schedule.ts'

export interface GatewayOptions {
  config: GatewayConfig
  clock?: Clock
  log?: Logger
  /** The route table; default the committed functions/_manifest.gen.ts. */
  manifest?: ManifestEntry[]
  /** 'reference': answer through the @whatwg-node/server adapter instead of the fast host. */
  httpHost?: 'fast' | 'reference'
  /** `gateway dev`: load the table from this functions dir and follow its changes. */
  watchFunctionsDir?: string
  /** Crash points for tests (lib/orders/fault.ts); none in production. */
  fault?: FaultHook
}

export interface RunningGateway {
  port: number
  /** The HTTPS port (undefined when tls.enabled is false). */
  securePort: number | undefined
  services: Services
  control: ControlServer
  stop(): Promise<void>
}

export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const { config } = options
  // Timestamps follow the monotonic clock; steps of the system clock are mended (clock-wiring.ts).
  const clock = options.clock ?? new GatewayClock()
  const log = options.log ?? createLogger()
  const dev = options.watchFunctionsDir
  const manifest = options.manifest ?? (dev ? await loadFunctionTable(dev) : (await import('../../functions/_manifest.gen.ts')).manifest)
  const problems = checkManifest(manifest.map((entry) => ({ file: entry.file, config: entry, hasHandler: typeof entry.handler === 'function' })))
  if (problems.length) throw new Error(`manifest invalid:\n${problems.join('\n')}`)
  for (const route of unknownOpenRoutes(manifest, config.security.openRoutes)) {
    log.warn({ route }, 'security.openRoutes names a route the gateway does not serve; it opens nothing')
  }

  // Secrets live in the data dir: owner-only files whatever umask started the gateway.
  restrictNewFiles()
  // Before anything opens a file in the data dir: one gateway per data dir.
  const lock = lockDataDir(config.dataDir)
  let services: Services
  try {
    services = await buildServices({ config, clock, log, fault: options.fault })
  } catch (error) {
    lock.release()
    throw error
  }
  const built = buildRouter(manifest, services)
  const router: GatewayRouter = dev ? new SwappableRouter(built) : built
  // The reference host's adapter (@whatwg-node/server) is loaded only when asked for: with
  // mqtt.js it was 8.7 MB of the 120 MB start-up budget (docs/decisions/0013-load-only-what-is-used.md).
  const listener = options.httpHost === 'reference' ? (await import('../host/fetch-adapter.ts')).fetchAdapter(router) : undefined
  const http = createHttpHost(router, log, {
    ...(listener ? { listener } : {}),
    tls: config.tls.enabled,
    credentialed: credentialedBy(services.tokens),
  })
  const tls = config.tls.enabled ? new TlsService({ config, host: http, status: services.tlsStatus, log }) : undefined
  const control = new ControlServer(log)
  registerButtonCommands(control, services)
  registerSimCommands(control, services)
  registerTokenCommands(control, services)
  registerRadioCommands(control, services)
  registerWebhookCommands(control, services)
  registerClockCommands(control, services)
  const backups = new BackupService(services, services.backupRecord)
  registerBackupCommands(control, backups)
  registerTlsCommands(control, tls, services.tlsStatus, config.dataDir)
  // Webhooks never target the gateway itself: where it really listens (port 0 → the chosen port).
  services.webhooks.setOwnEndpoint(() => {
    const address = http.server.address()
    return address && typeof address === 'object' ? { host: address.address, port: address.port } : { host: config.host, port: config.port }
  })
  let port = config.port
  const webSockets = wsHubPart(http.secureServer ? [http.server, http.secureServer] : http.server, services)
  services.metrics.webSocketClients = () => webSockets.clientCount()

  // Stopping runs in reverse: the store is flushed after everything that writes to it.
  const parts: Part[] = [
    dataDirLockPart(lock),
    {
      name: 'store',
      start: async () => {},
      stop: async () => {
        // The change log's watermark, written in the background, lands before the files close.
        await services.changes.flush()
        await services.store.close()
        services.history.close()
      },
    },
    // Before anything stamps a time from the radio or paging; it never waits for the time.
    clockPart(services.clockWatch),
    radioPart(services),
    pagingPart(services),
    // Closes an open repeater pairing window before the radio stops.
    { name: 'pairing', start: async () => {}, stop: () => services.pairing.stop() },
    // Stops before the store closes: writes the last_used times still held in memory.
    { name: 'tokens', start: async () => {}, stop: () => services.tokens.stop() },
    rolloutPart(services),
    fleetPart(services),
    webhookDispatcherPart({ webhooks: services.webhooks, clock, log, retrySchedule: config.webhooks.retrySchedule, clockGate: services.clockWatch }),
    {
      name: 'http',
      start: async () => {
        port = await http.listen(config.port, config.host).catch((error: unknown) => {
          throw listenError(error, config.port, config.host)
        })
      },
      stop: () => http.close(),
    },
    // After http, so it stops first: upgraded WebSocket sockets keep http.close() waiting
    // until the hub has closed them (the server's closeAllConnections does not see them).
    webSockets,
    {
      name: 'control',
      start: async () => {
        await control.listen(config.dataDir)
      },
      stop: () => control.close(),
    },
    announcePart({ lock, port: () => port, log, host: config.host }),
    backupSchedulePart({
      backups,
      record: services.backupRecord,
      clock,
      log,
      directory: config.backup.directory,
      at: config.backup.at,
      timezone: () => services.settings.timezone,
      settings: services.settings,
      clockWatch: services.clockWatch,
    }),
    ...(dev ? [devReloadPart(dev, router as SwappableRouter, services)] : []),
    // HTTPS beside it (stopped by http.close() too): same answers, limits and WebSocket feed
    // (the hub above listens on both servers). After the WebSocket hub and the control
    // socket, which need not wait for it: on a first start its certificate is made by a
    // child process.
    tlsPart(tls),
    // Advertised last, once the HTTP port is known (port 0 → the chosen one) and the HTTPS
    // certificate (its public-key pin) is.
    mdnsPart({
      enabled: config.mdns.enabled && !isLoopbackHost(config.host),
      port: () => port,
      tls: () => services.tlsStatus.get(),
      deviceId: services.identity.deviceId,
      version: services.identity.version,
      log,
    }),
  ]
  const stopAll = await startParts(parts, log)
  log.info({ port, dataDir: config.dataDir, radio: config.radio.kind, deviceId: services.identity.deviceId }, 'gateway started')
  return {
    port,
    securePort: tls?.port,
    services,
    control,
    stop: async () => {
      await stopAll()
      log.info('gateway stopped')
      log.flush?.()
    },
  }
}

/** `gateway dev`: swaps in a new route table whenever functions/ changes (runtime/manifest/dev-reload.ts). */
function devReloadPart(dir: string, router: SwappableRouter, services: Services): Part {
  let watcher: ReturnType<typeof watchFunctions> | undefined
  return {
    name: 'dev-reload',
    start: async () => {
      watcher = watchFunctions({ dir, log: services.log, apply: (entries) => router.swap(buildRouter(entries, services)) })
      services.log.info({ dir }, 'watching functions/: added, changed and removed files are live without a restart')
    },
    stop: async () => watcher?.close(),
  }
}
