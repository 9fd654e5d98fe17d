// hq.config.json: where headquarters reads the chain's sites (the MQTT broker), where it keeps
// them (PostgreSQL), where it serves the chain board, and when it raises alerts. Separate from
// gateway.config.json: HQ is a different program on a different machine.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import * as z from '../kernel/schema/index.ts'
import { brokerUrlSchema, topicPrefixSchema } from '../fleet/config.ts'
import { isValidTimezone } from '../kernel/time.ts'

const timezone = z.string().refine(isValidTimezone, 'must be an IANA timezone such as Europe/Paris')

export const hqConfigSchema = z.strictObject({
  /** The chain board and API (HTTPS on this port when tls is set, else plain HTTP). */
  port: z.number().int().min(0).max(65535).default(8100),
  host: z.string().min(1).default('0.0.0.0'),
  /**
   * HQ's own HTTPS (docs/hq.md, "5."): its certificate (PEM, the chain after it when there is
   * one) and its unencrypted key, files relative to this file. Set: the board, the API, the
   * live feed and the sites' downloads are served over HTTPS on `port`, and nothing in clear.
   */
  tls: z.strictObject({ cert: z.string().min(1), key: z.string().min(1) }).optional(),
  /** postgres://user:password@host:port/database */
  postgresUrl: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
  /** Connections per instance (ingest, API, LISTEN). */
  postgresPoolSize: z.number().int().min(2).max(100).default(6),
  broker: z.strictObject({
    url: brokerUrlSchema,
    username: z.string().min(1).max(256).optional(),
    password: z.string().max(256).optional(),
    ca: z.string().min(1).optional(),
    cert: z.string().min(1).optional(),
    key: z.string().min(1).optional(),
  }),
  /** The sites' fleet.topicPrefix. */
  topicPrefix: topicPrefixSchema,
  /**
   * This instance's name: its MQTT client id is hq-<instanceId>, and its persistent session
   * on the broker keeps what it has not acknowledged while it is down. One per instance.
   */
  instanceId: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'letters, digits, - and _ (up to 40)'),
  /** Shared subscription group (only with shared: true): instances in one group share the load. */
  shareGroup: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,40}$/)
    .default('hq'),
  /**
   * false (the default): every instance subscribes to everything (its own persistent
   * subscriptions) and applies it all; applying is idempotent per (site, seq), so what two
   * instances apply is stored once, and with any instance stopped, killed or retired the
   * others still receive and apply every change at once (docs/hq.md, "Correct while an
   * instance is down"). true: a shared subscription splits the load, but the broker keeps
   * sending a stopped or dead instance its share, which waits for it.
   */
  shared: z.boolean().default(false),
  /** Messages applied per PostgreSQL transaction, and the longest a message waits for its batch. */
  batchSize: z.number().int().min(1).max(5000).default(500),
  batchWaitMs: z.number().int().min(0).max(5000).default(20),
  /**
   * The chain's calendar ("this week"), and the zone to read an older gateway's events in
   * (local times without offset; current gateways send UTC instants and their own zone in
   * their status); per-site exceptions.
   */
  timezone: timezone.default('UTC'),
  siteTimezones: z.record(z.string(), timezone).default({}),
  /** Time to table, for a site whose status does not send its own target (an older gateway). */
  targetSeconds: z.number().int().min(1).max(86_400).default(600),
  alerts: z
    .strictObject({
      /** A site silent or offline for longer than this raises an alert. */
      offlineMinutes: z.number().min(0.05).max(10_080).default(10),
      /**
       * A site whose status says its radio is down for longer than this raises an alert (a
       * gateway starting or restarting its radio is down for seconds, not minutes).
       */
      radioDownMinutes: z.number().min(0.05).max(10_080).default(5),
      /** A backlog at least this large and larger than the previous status raises an alert. */
      backlogThreshold: z.number().int().min(1).default(100),
      /** A range of changes a site could no longer replay stays an open alert this long. */
      lostHours: z.number().min(0.01).max(8760).default(24),
      /** An HQ instance that has not acknowledged (heartbeat in PostgreSQL) for this long raises an alert. */
      instanceSilentSeconds: z.number().min(1).max(86_400).default(60),
      /** How often alerts are evaluated. */
      checkIntervalMs: z.number().int().min(100).max(3_600_000).default(30_000),
      /** Signed webhooks (standard-webhooks) for every alert raised or cleared. */
      webhooks: z
        .array(z.strictObject({ url: z.string().url(), secret: z.string().regex(/^whsec_[A-Za-z0-9+/=]{16,}$/, 'must be whsec_<base64>') }))
        .max(20)
        .default([]),
      /** Allow webhook URLs on loopback/private addresses (tests, a chain's own LAN). */
      allowPrivateTargets: z.boolean().default(false),
    })
    .prefault({}),
  /**
   * What a site published and HQ did not receive (a broker restart forgets shared
   * subscriptions, a broker crash loses what it had not saved) is asked of the site again
   * (lib/hq/replay.ts).
   */
  replay: z
    .strictObject({
      enabled: z.boolean().default(true),
      /** How long something must stay missing (chain_seq not moving) before it is asked for. */
      graceSeconds: z.number().min(0).max(86_400).default(10),
      /** A site asked and still missing something is asked again after this. */
      retrySeconds: z.number().min(1).max(86_400).default(30),
      /** How often each instance looks for sites to ask. */
      checkIntervalMs: z.number().int().min(100).max(3_600_000).default(5000),
    })
    .prefault({}),
  /**
   * Releases rolled out to the sites (issue 46, docs/hq.md "Rollouts"): uploads are verified
   * with these public keys (PEM files, relative to this file; the chain's release keys, the
   * .pub files a gateway trusts), and sites download them from publicUrl (this HQ as the
   * sites reach it, e.g. https://hq.chain.example:8100). An upload is staged in a temporary
   * file (under TMPDIR), never held in memory (lib/hq/release-staging.ts).
   */
  releases: z
    .strictObject({
      keys: z.array(z.string().min(1)).max(20).default([]),
      publicUrl: z
        .string()
        .regex(/^https?:\/\/[^/\s@]+\/?$/, 'must be http(s)://host[:port], without a path')
        .optional(),
      maxBytes: z
        .number()
        .int()
        .min(1024)
        .max(2 * 1024 ** 3)
        .default(256 * 1024 ** 2),
    })
    .prefault({}),
  /** How often each instance drives the rollout (lib/hq/rollouts.ts); any instance may. */
  rollout: z.strictObject({ checkIntervalMs: z.number().int().min(100).max(600_000).default(5000) }).prefault({}),
})

export type HqConfig = z.infer<typeof hqConfigSchema>

export class HqConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'HqConfigError'
  }
}

export function parseHqConfig(input: unknown, source = 'hq.config.json'): HqConfig {
  const result = hqConfigSchema.safeParse(input ?? {})
  if (result.success) return result.data
  const problems = result.error.issues.map((issue) =>
    issue.code === 'unrecognized_keys'
      ? `unknown key ${issue.keys.map((k) => `"${[...issue.path, k].join('.')}"`).join(', ')}`
      : `"${issue.path.join('.')}": ${issue.message}`,
  )
  throw new HqConfigError(`${source}: ${problems.join('; ')}`)
}

/** --config, else HQ_CONFIG, else ./hq.config.json, else /etc/tracker-gateway/hq.config.json. */
export function loadHqConfig(configPath: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): HqConfig {
  const explicit = configPath ?? env.HQ_CONFIG
  const file =
    explicit !== undefined
      ? path.resolve(cwd, explicit)
      : [path.resolve(cwd, 'hq.config.json'), '/etc/tracker-gateway/hq.config.json'].find((f) => existsSync(f))
  if (!file) throw new HqConfigError('no hq.config.json here nor in /etc/tracker-gateway (or give --config FILE)')
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new HqConfigError(
      code === 'ENOENT' ? `config file not found: ${file}` : `${file}: ${error instanceof SyntaxError ? `not valid JSON (${error.message})` : String(error)}`,
    )
  }
  const config = parseHqConfig(raw, file)
  const dir = path.dirname(file)
  // TLS files are relative to the config file, so the service finds them from any directory.
  for (const key of ['ca', 'cert', 'key'] as const) {
    if (config.broker[key]) config.broker[key] = path.resolve(dir, config.broker[key])
  }
  if (config.tls) config.tls = { cert: path.resolve(dir, config.tls.cert), key: path.resolve(dir, config.tls.key) }
  config.releases.keys = config.releases.keys.map((key) => path.resolve(dir, key))
  return config
}

/** The site's timezone (a per-site exception, else the chain's). */
export function siteTimezone(config: Pick<HqConfig, 'timezone' | 'siteTimezones'>, siteId: string): string {
  return config.siteTimezones[siteId] ?? config.timezone
}
