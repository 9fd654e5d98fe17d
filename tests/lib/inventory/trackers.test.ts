import t from 'tap'
import { TrackerInventory, type TrackerRecord } from '../../../lib/inventory/trackers.ts'
import { Store } from '../../../lib/store/db.ts'

async function open(store = new Store()) {
  return { store, inventory: await TrackerInventory.open(await store.collection<TrackerRecord>('trackers')) }
}

t.test('captured on a starter, seen later, looked up by number and address, persisted', async (t) => {
  const dir = t.testdir()
  const { store, inventory } = await open(new Store({ dataDir: dir, syncIntervalMs: 0 }))
  t.equal(await inventory.seen({ address: 'X', at: 1 }), undefined, 'unknown addresses are not captured by a mere sighting')
  await inventory.captured({ address: 'A', number: 3, at: 10 })
  await inventory.seen({ address: 'A', battery: 90, at: 20 })
  await inventory.seen({ address: 'A', linkQuality: 180, at: 15 })
  await inventory.bind('A', { uuid: 'u1', name: 3 })
  const expected = { number: 3, address: 'A', captured: 10, lastSeen: 20, battery: 90, linkQuality: 180, order: { uuid: 'u1', name: 3 } }
  t.same(inventory.byNumber(3), expected)
  t.same(inventory.byAddress('A'), expected)
  await store.close()
  const reopened = await open(new Store({ dataDir: dir }))
  t.same(reopened.inventory.list(), [expected])
})

t.test('a replacement tracker with the same number takes over; clearUnbound keeps bound ones', async (t) => {
  const { inventory } = await open()
  await inventory.captured({ address: 'A', number: 3, at: 1 })
  await inventory.captured({ address: 'B', number: 3, at: 2 })
  t.same(
    inventory.list().map((r) => r.address),
    ['B'],
  )
  await inventory.captured({ address: 'C', number: 4, at: 3 })
  await inventory.captured({ address: 'D', number: 5, at: 3 })
  await inventory.bind('C', { uuid: 'u', name: 4 })
  t.equal(await inventory.clearUnbound(), 2)
  t.same(
    inventory.list().map((r) => r.number),
    [4],
  )
  await inventory.reconcile([])
  t.equal(inventory.byNumber(4)?.order, null, 'reconcile drops bindings to orders that are gone')
})

t.test('a tracker that left the radio network is forgotten unless an active order holds it', async (t) => {
  const { inventory } = await open()
  await inventory.captured({ address: 'A', number: 3, at: 1 })
  await inventory.captured({ address: 'B', number: 4, at: 1 })
  await inventory.bind('B', { uuid: 'u', name: 4 })
  t.equal(await inventory.left('A'), true)
  t.equal(await inventory.left('B'), false, 'held by an order')
  t.equal(await inventory.left('Z'), false, 'unknown')
  t.same(
    inventory.list().map((r) => r.address),
    ['B'],
  )
})
