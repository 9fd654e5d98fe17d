// gateway.config.json: one strict schema. An unknown key or a bad value stops start-up with
// a message naming the key. Environment variables and CLI flags override the file.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import * as z from './kernel/schema/index.ts'
import { fleetConfigDefault, fleetConfigSchema } from './fleet/config.ts'

const port = z.number().int().min(0).max(65535)

export const configSchema = z.strictObject({
  port: port.default(8000),
  host: z.string().min(1).default('0.0.0.0'),
  dataDir: z.string().min(1).default('./data'),
  deviceId: z.string().min(1).max(64).optional(),
  radio: z
    .strictObject({
      kind: z.enum(['simulated', 'zigbee']).default('simulated'),
      adapter: z.enum(['zstack', 'ember', 'deconz', 'zigate', 'zboss', 'ezsp', 'zoh']).optional(),
      serialPort: z.string().min(1).optional(),
      /** Trackers in the simulated restaurant (numbered from 1); ignored by the Zigbee radio. */
      trackers: z.number().int().min(1).max(999).default(50),
      // Serial options (docs/operations.md): herdsman's per-stick defaults apply when omitted.
      baudRate: z.number().int().min(1200).max(4_000_000).optional(),
      rtscts: z.boolean().optional(),
      /** Coordinator transmit power in dBm, for adapters that support setting it. */
      transmitPower: z.number().int().min(-30).max(30).optional(),
      /**
       * The manufacturer code the tracker firmware puts in every trkTracker (0xFC00) frame;
       * frames with another code are dropped. Default 0xFFF1 (a ZCL test vendor code).
       */
      manufacturerCode: z.number().int().min(1).max(0xfffe).optional(),
    })
    .superRefine((radio, context) => {
      const undetectable = radio.serialPort !== undefined && /^(tcp|socket):\/\/|^\/dev\/serial\/by-id\//.test(radio.serialPort)
      if (radio.kind === 'zigbee' && undetectable && radio.adapter === undefined) {
        context.addIssue({
          code: 'custom',
          path: ['adapter'],
          message: `required with serialPort "${radio.serialPort}" (herdsman cannot detect the adapter type there): one of zstack, ember, deconz, zigate, zboss, zoh`,
        })
      }
    })
    .default({ kind: 'simulated', trackers: 50 }),
  storage: z
    .strictObject({
      /** Extra wait, in ms, before a group commit's fdatasync of acknowledged NeDB writes (0: none beyond the event-loop turn and the fdatasync in progress). */
      syncIntervalMs: z.number().int().min(0).max(1000).default(0),
      historySynchronous: z.enum(['NORMAL', 'FULL']).default('FULL'),
      /** Memory for presented history pages answered again (lib/api/history-pages.ts), in bytes; 0: none. */
      historyPageCacheBytes: z.number().int().min(0).max(256_000_000).default(4_000_000),
      /** Lines appended to a NeDB datafile since its last rewrite before it is compacted (lib/store/db.ts). */
      compactAfterLines: z.number().int().min(10).max(10_000_000).default(2000),
    })
    .default({ syncIntervalMs: 0, historySynchronous: 'FULL', historyPageCacheBytes: 4_000_000, compactAfterLines: 2000 }),
  http: z
    .strictObject({
      /** Host names the gateway answers to beyond IP literals, localhost and its own hostname(.local); others get 421. */
      allowedHosts: z
        .array(
          z
            .string()
            .regex(/^[A-Za-z0-9][A-Za-z0-9.\-_]*$/)
            .max(253),
        )
        .max(64)
        .default([]),
    })
    .default({ allowedHosts: [] }),
  v1: z
    .strictObject({
      basicAuth: z.boolean().default(false),
    })
    .default({ basicAuth: false }),
  security: z
    .strictObject({
      /** v2 routes opened without a bearer token for legacy integrators, e.g. "GET /api/v2/orders". */
      openRoutes: z.array(z.string().regex(/^(GET|POST|DELETE) \/api\/v2\/\S+$/)).default([]),
      /** Failed authentication attempts per client address per window before 429. */
      authFailuresPerMinute: z.number().int().min(1).max(10000).default(20),
    })
    .default({ openRoutes: [], authFailuresPerMinute: 20 }),
  webhooks: z
    .strictObject({
      allowLoopback: z.boolean().default(false),
      /** Retry delays in ms; the last repeats while the receiver stays down. */
      retrySchedule: z.array(z.number().int().min(10).max(3_600_000)).min(1).default([1000, 5000, 30000, 120000, 600000]),
      timeoutMs: z.number().int().min(100).max(60000).default(5000),
    })
    .default({ allowLoopback: false, retrySchedule: [1000, 5000, 30000, 120000, 600000], timeoutMs: 5000 }),
  cloud: z
    .strictObject({
      url: z.url().nullable().default(null),
    })
    .default({ url: null }),
  mdns: z
    .strictObject({
      enabled: z.boolean().default(true),
    })
    .default({ enabled: true }),
  /** Scheduled hot backups (docs/operations.md, Backup); off while `directory` is null. */
  backup: z
    .strictObject({
      /** Where scheduled backups go (a USB stick, a network share); relative to the config file. */
      directory: z.string().min(1).nullable().default(null),
      /** Time of day, in the gateway's timezone, HH:MM. */
      at: z
        .string()
        .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'a time of day as HH:MM')
        .default('03:30'),
      /** How many scheduled backups of this gateway to keep in the directory. */
      keep: z.number().int().min(1).max(1000).default(7),
      /** A file holding the passphrase that encrypts them (its first line); null: not encrypted. */
      passphraseFile: z.string().min(1).nullable().default(null),
    })
    .default({ directory: null, at: '03:30', keep: 7, passphraseFile: null }),
  /** HTTPS beside the plain HTTP port (docs/operations.md, "TLS"); on by default with the box's own certificate. */
  tls: z
    .strictObject({
      enabled: z.boolean().default(true),
      /** Default: the plain port + 443, 8443 beside 8000 (any free port when `port` is 0). */
      port: port.optional(),
      /** A certificate (PEM, chain after it) and its key from the restaurant's IT; both or neither. */
      certFile: z.string().min(1).optional(),
      keyFile: z.string().min(1).optional(),
    })
    .refine((tls) => (tls.certFile === undefined) === (tls.keyFile === undefined), { message: 'certFile and keyFile go together', path: ['certFile'] })
    .default({ enabled: true }),
  /** The fleet bridge to an MQTT broker (docs/fleet.md); off by default. */
  fleet: fleetConfigSchema.default(fleetConfigDefault),
  /** Clock steps and synchronisation (lib/kernel/clock-watch.ts, docs/operations.md "Time"). */
  clock: z
    .strictObject({
      /** A step of the system clock larger than this is mended. */
      jumpThresholdMs: z.number().int().min(500).max(600_000).default(3000),
      /** How often the system is asked whether its clock is synchronised. */
      syncCheckSeconds: z.number().int().min(1).max(3600).default(60),
      /** Longest wait of webhook deliveries for a clock the system says is not synchronised. */
      holdDeliveriesSeconds: z.number().int().min(0).max(86_400).default(300),
      /** Furthest a signed-in board may move the gateway's clock. */
      boardMaxShiftDays: z.number().int().min(1).max(3650).default(366),
    })
    .default({ jumpThresholdMs: 3000, syncCheckSeconds: 60, holdDeliveriesSeconds: 300, boardMaxShiftDays: 366 }),
})

export type GatewayConfig = z.infer<typeof configSchema>

export class ConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ConfigError'
  }
}

/** Validates a config object; the error names each offending key by its dotted path. */
export function parseConfig(input: unknown, source = 'gateway.config.json'): GatewayConfig {
  const result = configSchema.safeParse(input ?? {})
  if (result.success) return result.data
  const problems = result.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const prefix = issue.path.length ? `${issue.path.join('.')}.` : ''
      return `unknown key ${issue.keys.map((k) => `"${prefix}${k}"`).join(', ')}`
    }
    return `"${issue.path.join('.')}": ${issue.message}`
  })
  return fail(`${source}: ${problems.join('; ')}`)
}

function fail(message: string): never {
  throw new ConfigError(message)
}

export interface ConfigOverrides {
  configPath?: string
  port?: number
  dataDir?: string
}

/** Where deploy/install.sh puts the config: used when neither a flag, GATEWAY_CONFIG nor ./gateway.config.json names one. */
export const installedConfigPath = '/etc/tracker-gateway/gateway.config.json'

/**
 * The config file in force: --config, else GATEWAY_CONFIG (both must exist), else
 * ./gateway.config.json, else the installed one, else none (the defaults).
 */
export function configFileOf(
  overrides: ConfigOverrides,
  env: NodeJS.ProcessEnv,
  cwd: string,
  installed = installedConfigPath,
): { file: string | undefined; explicit: boolean } {
  const explicitPath = overrides.configPath ?? env.GATEWAY_CONFIG
  if (explicitPath !== undefined) return { file: path.resolve(cwd, explicitPath), explicit: true }
  const file = [path.resolve(cwd, 'gateway.config.json'), installed].find((candidate) => existsSync(candidate))
  return { file, explicit: false }
}

/** Where the data dir came from, in words, for messages that name the data dirs looked in. */
export function dataDirSource(overrides: ConfigOverrides, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd(), installed = installedConfigPath): string {
  if (overrides.dataDir !== undefined) return '--data-dir'
  if (env.GATEWAY_DATA_DIR !== undefined) return 'GATEWAY_DATA_DIR'
  const { file } = configFileOf(overrides, env, cwd, installed)
  return file ? `the config ${file}` : 'the default ./data'
}

/**
 * Reads the config file (see configFileOf), then applies PORT, GATEWAY_DATA_DIR,
 * GATEWAY_WEBHOOKS_ALLOW_LOOPBACK and flags. A relative dataDir in a file is relative to
 * that file, so every command finds the same data dir whatever its working directory.
 */
export function loadConfig(
  overrides: ConfigOverrides = {},
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
  installed = installedConfigPath,
): GatewayConfig {
  const { file: configPath, explicit } = configFileOf(overrides, env, cwd, installed)
  let raw: unknown = {}
  if (configPath !== undefined) {
    try {
      raw = JSON.parse(readFileSync(configPath, 'utf8'))
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT' && !explicit) raw = {}
      else if (code === 'ENOENT') fail(`config file not found: ${configPath}`)
      else if (error instanceof SyntaxError) fail(`${configPath}: not valid JSON (${error.message})`)
      else throw error
    }
    // A file holding JSON's null is a mistake, not an empty config (that is {}).
    if (raw === null) fail(`${configPath}: not a JSON object (null)`)
  }
  const config = parseConfig(raw, configPath)
  const envPort = env.PORT !== undefined ? parseEnvPort(env.PORT) : undefined
  const resolvedPort = overrides.port ?? envPort ?? config.port
  const fileDir = configPath && (raw as { dataDir?: unknown }).dataDir !== undefined ? path.dirname(configPath) : cwd
  const dataDir = overrides.dataDir ?? env.GATEWAY_DATA_DIR
  const allowLoopback = env.GATEWAY_WEBHOOKS_ALLOW_LOOPBACK === '1' ? true : config.webhooks.allowLoopback
  return {
    ...config,
    port: resolvedPort,
    dataDir: dataDir !== undefined ? path.resolve(cwd, dataDir) : path.resolve(fileDir, config.dataDir),
    webhooks: { ...config.webhooks, allowLoopback },
    backup: resolveBackupPaths(config.backup, configPath ? path.dirname(configPath) : cwd),
  }
}

function parseEnvPort(text: string): number {
  const value = Number(text)
  if (!/^\d+$/.test(text) || !port.safeParse(value).success) fail(`PORT: "${text}" is not a port number`)
  return value
}

/** The backup section's paths, relative to the config file (as dataDir is). */
function resolveBackupPaths(backup: GatewayConfig['backup'], base: string): GatewayConfig['backup'] {
  return {
    ...backup,
    directory: backup.directory === null ? null : path.resolve(base, backup.directory),
    passphraseFile: backup.passphraseFile === null ? null : path.resolve(base, backup.passphraseFile),
  }
}
