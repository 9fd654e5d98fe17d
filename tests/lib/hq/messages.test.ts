// What HQ accepts from the broker: the bridge's own messages (rendered by the gateway's
// renderer), and clear reasons for anything else.
import t from 'tap'
import { SimulatedSite } from '../../../bench/hq-sites.ts'
import { parseSiteMessage, topicParts } from '../../../lib/hq/messages.ts'

const site = new SimulatedSite('paris-11', { prefix: 'chain/eu', timezone: 'Europe/Paris' })

t.test("the fleet bridge's messages parse", async (t) => {
  const { order, messages } = site.create(Date.parse('2026-11-25T12:00:00Z'))
  const [created] = messages
  t.match(parseSiteMessage('chain/eu', created!.topic, created!.payload), {
    ok: true,
    message: { kind: 'event', seq: 1, uuid: order.uuid, state: 'started', created: '2026-11-25T13:00:00', locationName: null, siteId: 'paris-11' },
  })
  site.locate(order.uuid, 12)
  const [event, summary] = site.clear(order.uuid, Date.parse('2026-11-25T12:30:00Z'))
  t.match(parseSiteMessage('chain/eu', event!.topic, event!.payload), { ok: true, message: { kind: 'event', state: 'cleared', locationName: '12' } })
  t.match(parseSiteMessage('chain/eu', summary!.topic, Buffer.from(summary!.payload)), {
    ok: true,
    message: { kind: 'history', seq: 3, orderCleared: '2026-11-25T13:30:00+01:00' },
  })
  const status = site.status(false, { reason: 'stopped' })
  t.match(parseSiteMessage('chain/eu', status.topic, status.payload), { ok: true, message: { kind: 'status', online: false, reason: 'stopped', backlog: 0 } })
  const radioDown = site.status(true, { radioUp: false })
  t.match(parseSiteMessage('chain/eu', radioDown.topic, radioDown.payload), {
    ok: true,
    message: { kind: 'status', online: true, radioUp: false, radioKind: 'zigbee' },
  })
})

t.test('anything else is rejected with a reason', async (t) => {
  const status = JSON.parse(site.status(true).payload)
  const reason = (topic: string, payload: unknown) => {
    const result = parseSiteMessage('chain/eu', topic, typeof payload === 'string' ? payload : JSON.stringify(payload))
    return result.ok ? 'accepted' : result.reason
  }
  t.equal(reason('chain/eu/paris-11/status', { ...status, siteId: 'lyon-2' }), 'chain/eu/paris-11/status: payload names site "lyon-2"')
  t.equal(reason('chain/eu/paris-11/status', '{'), 'chain/eu/paris-11/status: payload is not JSON')
  t.match(reason('chain/eu/paris-11/status', { ...status, backlog: -1 }), /"backlog"/)
  t.match(reason('chain/eu/paris-11/status', { ...status, radioUp: 'no' }), /"radioUp"/)
  t.match(reason('chain/eu/paris-11/events', { seq: 0 }), /"seq"/)
  t.equal(reason('chain/eu/paris-11/other', status), 'not a site topic: chain/eu/paris-11/other')
  t.equal(reason('other/paris-11/status', status), 'not a site topic: other/paris-11/status')
  t.same(topicParts('chain/eu', 'chain/eu/a/b/c'), undefined)
  t.same(topicParts('chain/eu', 'chain/eu//events'), undefined)
})
