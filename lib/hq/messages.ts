// What arrives from the sites' fleet bridges (docs/fleet.md), checked and typed. The topic
// names the site; a payload naming another site, or that is not the bridge's form, is
// rejected (counted and logged, then acknowledged: keeping it would block nothing but would
// come back forever).
import * as z from '../kernel/schema/index.ts'
import { isValidTimezone } from '../kernel/time.ts'

const localTime = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/)
const zonedTime = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/)
const seq = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER)
const text = z.union([z.string(), z.number()]).transform(String)
/** The change the site rendered before this one (null: its first); absent from older gateways. */
const prevSeq = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional()

const eventSchema = z.object({
  seq,
  uuid: z.string().min(1).max(64),
  name: text,
  orderType: z.string().min(1).max(32),
  locationName: text.nullable().optional(),
  state: z.enum(['started', 'located', 'cleared']),
  created: localTime,
  stateStarted: localTime,
  change: z.string().min(1).max(32),
  siteId: z.string(),
  prevSeq,
  /**
   * created and stateStarted as instants (with their offset, or UTC). Absent from older
   * gateways: HQ then reads the local times in its configured zone for the site.
   */
  createdAt: zonedTime.optional(),
  stateStartedAt: zonedTime.optional(),
})

const historySchema = z.object({
  seq,
  uuid: z.string().min(1).max(64),
  name: text,
  orderType: z.string().min(1).max(32),
  locationName: text.nullable().optional(),
  orderStarted: zonedTime,
  orderLocated: zonedTime.nullable(),
  orderCleared: zonedTime,
  siteId: z.string(),
  prevSeq,
})

const statusSchema = z.object({
  siteId: z.string(),
  online: z.boolean(),
  reason: z.string().max(200).optional(),
  deviceId: z.string().max(200).optional(),
  version: z.string().max(100).optional(),
  startedAt: z.string().datetime({ offset: true }),
  at: z.string().datetime({ offset: true }),
  backlog: z.number().int().min(0),
  lastPublishedSeq: seq.nullable().optional(),
  /** Sent by gateways that report their radio, and only while online (docs/fleet.md). */
  radioUp: z.boolean().optional(),
  radioKind: z.string().max(32).optional(),
  /** Every change the site published with a seq above this can still be replayed (absent: an older gateway). */
  replayAfter: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  /** The site's zone and target (absent from older gateways: HQ's configured ones apply). */
  timezone: z.string().max(64).refine(isValidTimezone, 'must be an IANA timezone').optional(),
  targetSeconds: z.number().int().min(1).max(86_400).optional(),
  /** Where the site is in a rollout HQ told it of (issue 46; absent: none, or an older gateway). */
  rollout: z
    .object({
      rolloutId: z.number().int().min(1),
      attempt: z.number().int().min(1),
      state: z.string().max(40),
      reason: z.string().max(1000).nullable(),
      version: z.string().max(100),
      at: z.string().datetime({ offset: true }),
    })
    .optional(),
})

export type SiteEvent = Omit<z.infer<typeof eventSchema>, 'locationName'> & { kind: 'event'; locationName: string | null }
export type SiteHistory = Omit<z.infer<typeof historySchema>, 'locationName'> & { kind: 'history'; locationName: string | null }
export type SiteStatus = z.infer<typeof statusSchema> & { kind: 'status' }
export type SiteMessage = SiteEvent | SiteHistory | SiteStatus

export type Parsed = { ok: true; message: SiteMessage } | { ok: false; reason: string }

/** `<prefix>/<siteId>/<channel>` → site and channel, or undefined for another topic. */
export function topicParts(prefix: string, topic: string): { siteId: string; channel: string } | undefined {
  if (!topic.startsWith(`${prefix}/`)) return undefined
  const rest = topic.slice(prefix.length + 1).split('/')
  if (rest.length !== 2 || !rest[0]) return undefined
  return { siteId: rest[0], channel: rest[1] }
}

const schemas = { events: eventSchema, history: historySchema, status: statusSchema } as const
const kinds = { events: 'event', history: 'history', status: 'status' } as const

export function parseSiteMessage(prefix: string, topic: string, payload: Buffer | string): Parsed {
  const parts = topicParts(prefix, topic)
  if (!parts || !(parts.channel in schemas)) return { ok: false, reason: `not a site topic: ${topic}` }
  const channel = parts.channel as keyof typeof schemas
  let json: unknown
  try {
    json = JSON.parse(payload.toString())
  } catch {
    return { ok: false, reason: `${topic}: payload is not JSON` }
  }
  const result = schemas[channel].safeParse(json)
  if (!result.success) {
    const issue = result.error.issues[0]!
    return { ok: false, reason: `${topic}: "${issue.path.join('.')}" ${issue.message}` }
  }
  if (result.data.siteId !== parts.siteId) return { ok: false, reason: `${topic}: payload names site "${result.data.siteId}"` }
  const data = result.data as Record<string, unknown>
  const message = { ...data, kind: kinds[channel] } as SiteMessage
  if (message.kind !== 'status') message.locationName = (data.locationName as string | null | undefined) || null
  return { ok: true, message }
}
