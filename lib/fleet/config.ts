// The `fleet` section of gateway.config.json: which MQTT broker a site's gateway feeds, as
// whom, and under which topics. Off by default: a gateway works on its own.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import * as z from '../kernel/schema/index.ts'

/** A topic level: no MQTT wildcards, no separator, no NUL (they would break subscriptions). */
const topicLevel = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[^/+#\u0000]+$/, 'must not contain "/", "+", "#" or NUL')

/** A broker URL: no user:password@ in it (credentials go in their own keys, never into logs). */
export const brokerUrlSchema = z.string().regex(/^mqtts?:\/\/[^/\s@]+\/?$/, 'must be mqtt://host[:port] or mqtts://host[:port]')

/** Topics are <topicPrefix>/<siteId>/{events,history,status}; the sites and headquarters read it alike. */
export const topicPrefixSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[^/+#\u0000]+(\/[^/+#\u0000]+)*$/, 'must be levels separated by "/", without "+", "#" or empty levels')
  .default('tracker-gateway')

export const fleetConfigSchema = z
  .strictObject({
    enabled: z.boolean().default(false),
    brokerUrl: brokerUrlSchema.optional(),
    /** PEM files (mqtts://): the broker's CA, and this gateway's client certificate and key. */
    ca: z.string().min(1).optional(),
    cert: z.string().min(1).optional(),
    key: z.string().min(1).optional(),
    username: z.string().min(1).max(256).optional(),
    password: z.string().max(256).optional(),
    /** This restaurant's name in topics; defaults to the gateway's deviceId. */
    siteId: topicLevel.optional(),
    /** Topics are <topicPrefix>/<siteId>/{events,history,status}; levels separated by "/". */
    topicPrefix: topicPrefixSchema,
    /** First reconnect delay; doubles per failed attempt up to maxReconnectMs. */
    reconnectMs: z.number().int().min(50).max(600_000).default(1000),
    maxReconnectMs: z.number().int().min(50).max(3_600_000).default(60_000),
    /** How often the retained status message is refreshed while connected. */
    statusIntervalMs: z.number().int().min(1000).max(3_600_000).default(60_000),
    /**
     * Published changes kept so headquarters can ask for what it missed (the replay window,
     * lib/fleet/replay.ts); 0: none kept, replay requests are not listened to.
     */
    replayWindow: z.number().int().min(0).max(100_000).default(2000),
    /** At most this many changes replayed per minute, whatever headquarters asks. */
    replayPerMinute: z.number().int().min(1).max(1_000_000).default(6000),
    /**
     * Rollouts from headquarters (issue 46; docs/hq.md "Rollouts"): the release is downloaded
     * at most at bandwidthKiBps and installed only inside the window: between window.hours
     * (the site's local "HH:MM-HH:MM", may span midnight; absent: any time) and, with
     * window.noActiveOrders, only while no order is active. ca: the CA(s) HQ's certificate
     * must be signed by (PEM file); absent: the broker's `ca` above, else the public CAs.
     */
    rollout: z
      .strictObject({
        enabled: z.boolean().default(true),
        bandwidthKiBps: z.number().int().min(1).max(1_000_000).default(512),
        ca: z.string().min(1).optional(),
        window: z
          .strictObject({
            hours: z
              .string()
              .regex(/^([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM-HH:MM')
              .optional(),
            noActiveOrders: z.boolean().default(false),
          })
          .prefault({}),
      })
      .prefault({}),
  })
  .superRefine((fleet, context) => {
    if (fleet.enabled && !fleet.brokerUrl) {
      context.addIssue({ code: 'custom', path: ['brokerUrl'], message: 'required when fleet.enabled is true' })
    }
    if (Boolean(fleet.cert) !== Boolean(fleet.key)) {
      context.addIssue({ code: 'custom', path: [fleet.cert ? 'key' : 'cert'], message: 'cert and key go together' })
    }
  })

export type FleetConfig = z.infer<typeof fleetConfigSchema>

export const fleetConfigDefault: FleetConfig = fleetConfigSchema.parse({})

export interface FleetTopics {
  events: string
  history: string
  status: string
  /** Headquarters' requests to publish again what it missed (a topic a site reads). */
  replay: string
  /** Headquarters' rollout command for the site (retained; issue 46; a topic a site reads, only HQ writes). */
  rollout: string
}

export function fleetTopics(prefix: string, siteId: string): FleetTopics {
  return {
    events: `${prefix}/${siteId}/events`,
    history: `${prefix}/${siteId}/history`,
    status: `${prefix}/${siteId}/status`,
    replay: `${prefix}/${siteId}/replay`,
    rollout: `${prefix}/${siteId}/rollout`,
  }
}

/** Thrown when a CA, certificate or key file cannot be read: a TLS set-up problem. */
export class FleetTlsFileError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'FleetTlsFileError'
  }
}

function readTlsFile(label: string, file: string, cwd: string): Buffer {
  const resolved = path.resolve(cwd, file)
  try {
    return readFileSync(resolved)
  } catch (error) {
    throw new FleetTlsFileError(`cannot read fleet.${label} file ${resolved}: ${(error as NodeJS.ErrnoException).code ?? error}`, {
      cause: error,
    })
  }
}

/** Credentials and TLS material for mqtt.connect(); files are read at every connect (rotation). */
export function connectionSecrets(fleet: FleetConfig, cwd = process.cwd()) {
  const read = (label: string, file: string | undefined) => (file ? readTlsFile(label, file, cwd) : undefined)
  return {
    username: fleet.username,
    password: fleet.password,
    ca: read('ca', fleet.ca),
    cert: read('cert', fleet.cert),
    key: read('key', fleet.key),
  }
}

/** The CA(s) a site trusts for HQ's HTTPS, and where they came from (for messages). */
export interface HqTrust {
  ca: Buffer
  /** e.g. "fleet.rollout.ca /etc/tracker-gateway/hq-ca.pem". */
  source: string
}

/**
 * What a site trusts when it downloads a release from HQ (read at every download, so a renewed
 * file is picked up): fleet.rollout.ca, else the broker's fleet.ca (one private CA for the
 * chain's broker and HQ), else undefined: the system's public CAs.
 */
export function hqTrust(fleet: FleetConfig, cwd = process.cwd()): HqTrust | undefined {
  const [label, file] = fleet.rollout.ca ? ['rollout.ca', fleet.rollout.ca] : fleet.ca ? ['ca', fleet.ca] : []
  if (!label || !file) return undefined
  return { ca: readTlsFile(label, file, cwd), source: `fleet.${label} ${path.resolve(cwd, file)}` }
}
