import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

t.test('GET /api/v2/trackers lists known trackers (code 18); DELETE forgets unbound ones (1007)', async (t) => {
  const gw = await testGateway({}, '2026-04-01T09:00:00Z')
  const token = await gw.issueToken()
  await gw.services.settings.update({ timezone: '+02:00' })
  const trackers = gw.services.trackers
  await trackers.captured({ address: '00:12:4b:00:00:00:00:07', number: 7, at: gw.clock.now() })
  await trackers.captured({ address: '00:12:4b:00:00:00:00:03', number: 3, at: gw.clock.now() })
  await trackers.seen({ address: '00:12:4b:00:00:00:00:07', battery: 80, linkQuality: 150, at: gw.clock.now() + 60_000 })
  await trackers.bind('00:12:4b:00:00:00:00:03', { uuid: '0b8a3c8e-1111-4a2b-9c3d-000000000003', name: 3 })

  const { status, body } = await gw.json('GET /api/v2/trackers', { token })
  t.equal(status, 200)
  t.equal(body.returnCode, 18)
  t.equal(body.count, 2)
  t.same(body.trackers, [
    {
      number: 3,
      extendedAddress: '00:12:4b:00:00:00:00:03',
      battery: null,
      linkQuality: null,
      captured: '2026-04-01T11:00:00',
      lastSeen: '2026-04-01T11:00:00',
      available: true,
      order: { uuid: '0b8a3c8e-1111-4a2b-9c3d-000000000003', name: 3 },
    },
    {
      number: 7,
      extendedAddress: '00:12:4b:00:00:00:00:07',
      battery: 80,
      linkQuality: 150,
      captured: '2026-04-01T11:00:00',
      lastSeen: '2026-04-01T11:01:00',
      available: true,
      order: null,
    },
  ])
  await gw.clock.advance(3 * 3600_000 + 30_000)
  const later = await gw.json('GET /api/v2/trackers', { token })
  t.same(
    later.body.trackers.map((tr: { available: boolean }) => tr.available),
    [false, true],
    'silent for three hourly check-ins: unavailable',
  )

  const cleared = await gw.json('DELETE /api/v2/trackers', { token })
  t.equal(cleared.status, 200)
  t.match(cleared.body, { returnCode: 1007, removed: 1 })
  const after = await gw.json('GET /api/v2/trackers', { token })
  t.same(
    after.body.trackers.map((tr: { number: number }) => tr.number),
    [3],
    'the bound tracker stays',
  )
})

t.test('tracker routes need a token', async (t) => {
  const gw = await testGateway()
  t.equal((await gw.json('GET /api/v2/trackers')).status, 401)
  t.equal((await gw.json('DELETE /api/v2/trackers')).status, 401)
})
