// A gateway killed with SIGKILL in the middle of a webhook backlog delivers the rest after
// it restarts (the outbox is durable), and seq continues without reuse.
import { type ChildProcess, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline'
import t from 'tap'
import { checkFetchAnswers } from '../helpers/documented-responses.ts'
import { startReceiver } from '../helpers/webhooks.ts'
import { generousMs, until, untilProgress } from '../helpers/until.ts'

const fixture = path.join(import.meta.dirname, 'fixtures', 'webhook-gateway.ts')

interface Child {
  process: ChildProcess
  lines: string[]
  port: number
  send(line: string): void
  exited: Promise<unknown>
}

async function startChild(dataDir: string, configPath: string): Promise<Child> {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', fixture], {
    env: { ...process.env, GATEWAY_DATA_DIR: dataDir, GATEWAY_CONFIG: configPath, PORT: '0' },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const lines: string[] = []
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line))
  const exited = new Promise((resolve) => child.once('exit', resolve))
  await until(() => lines.some((l) => l.startsWith('ready ')), 'gateway ready')
  const port = Number(lines.find((l) => l.startsWith('ready '))!.split(' ')[1])
  return { process: child, lines, port, send: (line) => child.stdin!.write(`${line}\n`), exited }
}

t.test('SIGKILL mid-backlog: the rest is delivered after restart, in order, seq never reused', async (t) => {
  checkFetchAnswers(t)
  const dir = t.testdir()
  const configPath = path.join(dir, 'gateway.config.json')
  writeFileSync(
    configPath,
    JSON.stringify({
      host: '127.0.0.1',
      mdns: { enabled: false },
      // Generous: an attempt cut off on a busy machine after the receiver got it is sent again,
      // and this test counts redeliveries.
      webhooks: { allowLoopback: true, retrySchedule: [20, 50], timeoutMs: generousMs },
    }),
  )
  const dataDir = path.join(dir, 'data')
  const receiver = await startReceiver()
  t.teardown(() => receiver.close())
  let accepting = false
  const posts: { seq: number; run: number }[] = []
  let run = 1
  receiver.respond = (r) => {
    if (r.method !== 'POST') return 200
    if (!accepting) return 503
    posts.push({ seq: JSON.parse(r.body).seq, run })
    return 200
  }

  const first = await startChild(dataDir, configPath)
  t.teardown(() => first.process.kill('SIGKILL'))
  const registered = await fetch(`http://127.0.0.1:${first.port}/api/v1/register?http_client=${encodeURIComponent(receiver.url)}`)
  t.equal(registered.status, 200)
  first.send('record 100')
  await until(() => first.lines.includes('recorded 100'), 'changes recorded')
  accepting = true
  await until(() => posts.length >= 20, 'part of the backlog delivered')
  first.process.kill('SIGKILL')
  await first.exited
  const deliveredBeforeKill = posts.length
  t.ok(deliveredBeforeKill < 100, `killed mid-backlog (${deliveredBeforeKill} delivered)`)

  run = 2
  const second = await startChild(dataDir, configPath)
  t.teardown(() => second.process.kill('SIGKILL'))
  await untilProgress(
    () => new Set(posts.map((p) => p.seq)).size >= 100,
    () => posts.length,
    'the rest of the backlog',
  )
  second.send('record 1')
  await until(() => second.lines.some((l) => l.startsWith('recorded ')), 'a change after restart')
  const newSeq = Number(second.lines.find((l) => l.startsWith('recorded '))!.split(' ')[1])
  t.ok(newSeq > 100, `seq continues (${newSeq}), never reused`)
  await until(() => posts.some((p) => p.seq === newSeq), 'the new change delivered')

  const unique = [...new Set(posts.map((p) => p.seq))]
  t.same(unique, [...Array.from({ length: 100 }, (_, i) => i + 1), newSeq], 'every change, first deliveries in seq order')
  for (const r of [1, 2]) {
    const seqs = posts.filter((p) => p.run === r).map((p) => p.seq)
    t.ok(
      seqs.every((s, i) => i === 0 || s > seqs[i - 1]!),
      `run ${r}: strictly increasing`,
    )
  }
  t.ok(posts.length - unique.length <= 2, `at most the in-flight entry redelivered (${posts.length - unique.length})`)
  second.send('stop')
  await second.exited
})
