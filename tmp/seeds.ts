import { testGateway } from '../tests/helpers/gateway.ts'
for (const seed of [1, 2, 3, 4, 5, 28]) {
  const gw = await testGateway()
  await gw.services.rush.start({ minutes: 30, pace: 10, seed, targetSeconds: 300, peak: true })
  let most = 0, late = 0
  for (let s = 1; s <= 180; s++) { await gw.clock.advance(1000); await gw.services.orders.idle(); const a = gw.services.orders.list(); if (a.length > most) { most = a.length; late = a.filter((o) => (gw.clock.now() - o.created) / 1000 >= 30).length } }
  gw.services.rush.stop()
  console.log(seed, most, late)
}
