import t from 'tap'
import { Zcl } from 'zigbee-herdsman'
import { addressToIeee, ieeeToAddress, interpretMessage, zclDataType } from '../../../lib/radio/zigbee-profile.ts'

const device = { ieeeAddr: '0x00124b00aabbccdd', type: 'EndDevice' }
const at = 1000
const ours = { manufacturerCode: 0xfff1 }

t.test("the data type ids written out are herdsman's", async (t) => {
  t.same(zclDataType, {
    uint8: Zcl.DataType.UINT8,
    uint16: Zcl.DataType.UINT16,
    enum8: Zcl.DataType.ENUM8,
    ieeeAddr: Zcl.DataType.IEEE_ADDR,
  })
})

t.test('addresses convert between herdsman and API forms', async (t) => {
  t.equal(ieeeToAddress('0x00124B00AABBCCDD'), '00:12:4b:00:aa:bb:cc:dd')
  t.equal(addressToIeee('00:12:4b:00:aa:bb:cc:dd'), '0x00124b00aabbccdd')
  t.throws(() => addressToIeee('00:12'), /not an EUI-64/)
})

t.test('malformed location reports are ignored, not guessed', async (t) => {
  for (const locationDesc of ['', 'table 5', '0', '-3', '999999', 12]) {
    const events = interpretMessage({ type: 'attributeReport', cluster: 'genBasic', data: { locationDesc }, linkquality: 1, device }, at, false)
    t.same(events, [], String(locationDesc))
  }
  t.same(
    interpretMessage({ type: 'commandLocated', cluster: 'trkTracker', meta: ours, data: { tableId: 0 }, linkquality: 1, device }, at, false),
    [],
    'table 0 = not on a table',
  )
})

t.test('a start without a valid order type or number is ignored; a null trackerIeee means the sender', async (t) => {
  t.same(
    interpretMessage(
      {
        type: 'commandStarted',
        cluster: 'trkTracker',
        meta: ours,
        data: { trackerIeee: '0x0000000000000000', trackerNumber: 5, orderType: 7 },
        linkquality: 1,
        device,
      },
      at,
      false,
    ),
    [],
  )
  t.same(
    interpretMessage(
      {
        type: 'commandStarted',
        cluster: 'trkTracker',
        meta: ours,
        data: { trackerIeee: '0x0000000000000000', trackerNumber: 0, orderType: 0 },
        linkquality: 1,
        device,
      },
      at,
      false,
    ),
    [],
  )
  t.same(
    interpretMessage(
      {
        type: 'commandStarted',
        cluster: 'trkTracker',
        meta: ours,
        data: { trackerIeee: '0x0000000000000000', trackerNumber: 5, orderType: 0 },
        linkquality: 1,
        device,
      },
      at,
      false,
    ),
    [{ kind: 'trackerStarted', event: { address: '00:12:4b:00:aa:bb:cc:dd', number: 5, orderType: 'ON_PREMISE', at } }],
  )
})

t.test('a tracker number attribute report names the tracker in its sighting', async (t) => {
  const events = interpretMessage(
    { type: 'attributeReport', cluster: 'trkTracker', meta: ours, data: { trackerNumber: 17 }, linkquality: 99, device },
    at,
    true,
  )
  t.same(events, [{ kind: 'trackerSeen', event: { address: '00:12:4b:00:aa:bb:cc:dd', linkQuality: 99, at, number: 17 } }])
})

t.test('trkTracker frames count only with the configured manufacturer code', async (t) => {
  const located = (meta?: { manufacturerCode?: number }) => ({
    type: 'commandLocated',
    cluster: 'trkTracker',
    meta,
    data: { tableId: 4 },
    linkquality: 1,
    device,
  })
  t.same(interpretMessage(located({ manufacturerCode: 0x1234 }), at, false), [], "another vendor's 0xFC00")
  t.same(interpretMessage(located(undefined), at, false), [], 'no manufacturer code at all')
  t.same(interpretMessage(located({}), at, false), [], 'no manufacturer code in the header')
  t.same(
    interpretMessage(located({ manufacturerCode: 0x1234 }), at, false, 0x1234),
    [{ kind: 'trackerLocated', event: { address: '00:12:4b:00:aa:bb:cc:dd', table: 4, at } }],
    'the configured code',
  )
  t.same(
    interpretMessage({ type: 'raw', cluster: 0xfc00, data: Buffer.from([1]), linkquality: 7, device }, at, true),
    [{ kind: 'trackerSeen', event: { address: '00:12:4b:00:aa:bb:cc:dd', linkQuality: 7, at } }],
    'an unparsed frame from a tracker is still a sign of life',
  )
})
