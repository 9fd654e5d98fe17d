// The webhook outbox queues each change once per URL, even when a change is recorded again
// after a crash (OrdersService re-records stored changes above the change log's watermark).
import t from 'tap'
import { Outbox, type OutboxEntry } from '../../../lib/webhooks/outbox.ts'
import { Store } from '../../../lib/store/db.ts'

const entry = (url: string, seq: number): OutboxEntry => ({ url, seq, id: `msg_x_${seq}`, body: `{"seq":${seq}}`, attempts: 0, nextAttemptAt: 0, created: 0 })

t.test('a change already queued for a URL is not queued again', async (t) => {
  const collection = await new Store().collection<OutboxEntry>('webhook-outbox')
  const outbox = await Outbox.open(collection, new Set(['http://a/1', 'http://a/2']))
  for (const seq of [1, 2, 3]) await outbox.append(entry('http://a/1', seq))
  await outbox.append(entry('http://a/1', 2))
  await outbox.append(entry('http://a/1', 3))
  t.equal(outbox.backlog('http://a/1'), 3)
  t.equal(await collection.count({ url: 'http://a/1' }), 3, 'nor stored twice')
  await outbox.append(entry('http://a/2', 2))
  t.equal(outbox.backlog('http://a/2'), 1, 'per URL')

  const reopened = await Outbox.open(collection, new Set(['http://a/1', 'http://a/2']))
  await reopened.append(entry('http://a/1', 3))
  t.equal(reopened.backlog('http://a/1'), 3, 'also after a restart')
  await reopened.append(entry('http://a/1', 4))
  t.equal(reopened.head('http://a/1')?.seq, 1)
  t.equal(reopened.backlog('http://a/1'), 4)
})
