import t from 'tap'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { ControlServer } from '../../../runtime/control/control.ts'
import { formatWebhookList, registerWebhookCommands } from '../../../runtime/cli/webhook-commands.ts'
import { testGateway } from '../../helpers/gateway.ts'
import { startReceiver } from '../../helpers/webhooks.ts'

t.test('webhooks.list (gateway webhooks list) shows each URL with its secret, on the host', async (t) => {
  const gw = await testGateway({ webhooks: { allowLoopback: true } })
  const receiver = await startReceiver()
  t.teardown(async () => {
    gw.services.webhooks.close()
    await receiver.close()
  })
  const control = new ControlServer(memoryLogger().log)
  registerWebhookCommands(control, gw.services)
  t.equal(formatWebhookList([]), 'no webhooks registered')
  const { secret } = await gw.services.webhooks.register(receiver.url, 'v2')
  const reply = await control.handle({ id: 1, command: 'webhooks.list' })
  t.ok(reply.ok)
  const text = formatWebhookList(reply.result as Parameters<typeof formatWebhookList>[0])
  t.match(text, receiver.url)
  t.match(text, `secret:       ${secret}`)
  t.match(text, /v2, active, backlog 0/)
  t.match(text, /last success: never/)
})
