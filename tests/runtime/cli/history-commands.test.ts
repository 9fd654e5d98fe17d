import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { PassThrough } from 'node:stream'
import { promisify } from 'node:util'
import t from 'tap'
import { HistoryStore } from '../../../lib/history/store.ts'
import { historyExport, historyFile, historyImport, parseBound, progressBar, storedTimezone } from '../../../runtime/cli/history-commands.ts'
import { summary, uuidOf } from '../../lib/history/fixtures.ts'

const run = promisify(execFile)
const cli = path.resolve(import.meta.dirname, '../../../runtime/cli.ts')

function captureIo() {
  const stdout = new PassThrough()
  let out = ''
  stdout.on('data', (chunk) => (out += chunk))
  let err = ''
  return {
    io: { stdout, stderr: { write: (text: string) => (err += text), isTTY: false } },
    out: () => out,
    err: () => err,
  }
}

function seed(dataDir: string, summaries = [summary(1), summary(2, { orderLocated: Date.parse('2026-11-22T10:03:00.250Z') }), summary(3)]) {
  const store = new HistoryStore(historyFile(dataDir))
  store.insertMany(summaries)
  store.close()
}

t.test('export then import round-trips every field exactly, idempotently', async (t) => {
  const root = t.testdir({ source: {}, target: {} })
  const source = path.join(root, 'source')
  const target = path.join(root, 'target')
  seed(source, [
    summary(1, { orderStarted: Date.parse('2026-11-22T10:00:00.123Z'), locationName: 8, orderLocated: Date.parse('2026-11-22T10:01:00Z') }),
    summary(2),
  ])
  const exported = captureIo()
  t.equal(await historyExport(source, { timezone: 'America/Chicago' }, exported.io), '', 'streams to stdout, prints nothing more')
  const lines = exported.out().trimEnd().split('\n')
  t.equal(lines.length, 2)
  t.match(JSON.parse(lines[0]), { uuid: uuidOf(1), type: 'ORDER_SUMMARY', orderStarted: '2026-11-22T04:00:00.123-06:00', locationName: '8' })
  const file = path.join(root, 'history.ndjson')
  writeFileSync(file, exported.out())
  const first = captureIo()
  t.match(await historyImport(target, file, first.io), /2 lines, 2 added, 0 already in history, 0 rejected/)
  t.match(first.err(), /100% 2 lines/, 'progress reaches 100 % on stderr')
  const again = captureIo()
  t.match(await historyImport(target, file, again.io), /2 lines, 0 added, 2 already in history/)
  const store = new HistoryStore(historyFile(target))
  t.teardown(() => store.close())
  const original = new HistoryStore(historyFile(source))
  t.teardown(() => original.close())
  t.same(store.list({}, { offset: 0, limit: 10 }).items, original.list({}, { offset: 0, limit: 10 }).items)
})

t.test('import validates each line, keeps the good ones and reports the rejected with line numbers', async (t) => {
  const dir = t.testdir()
  const good = (n: number, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ uuid: uuidOf(n), name: n, orderType: 'TO_GO', orderStarted: '2026-11-22T10:00:00Z', orderCleared: '2026-11-22T11:05:00+01:00', ...extra })
  const lines = [
    good(1),
    '',
    '{not json',
    good(2, { orderType: 'DELIVERY' }),
    good(3, { uuid: 'nope' }),
    good(4, { orderCleared: '2026-11-22T08:00:00Z' }), // cleared before started
    good(5, { orderStarted: '2026-11-22 10:00:00' }), // no offset: ambiguous
    good(6, { extra: 1 }),
    good(7, { name: 0 }),
    good(8, { orderType: 'ON_PREMISES', locationName: '4', orderLocated: 1795341660000 }),
    '[1,2]',
    good(9, { orderStarted: '2026-02-30T10:00:00Z' }),
  ]
  const file = path.join(dir, 'in.ndjson')
  writeFileSync(file, lines.join('\n'))
  const io = captureIo()
  const error = await historyImport(dir, file, io.io).then(
    () => undefined,
    (e: Error) => e,
  )
  t.ok(error, 'rejected lines make the command fail')
  const text = error!.message
  t.match(text, /11 lines, 2 added, 0 already in history, 9 rejected/)
  t.match(text, /line 3: not JSON/)
  t.match(text, /line 4: orderType/)
  t.match(text, /line 5: uuid/)
  t.match(text, /line 6: orderCleared is before orderStarted/)
  t.match(text, /line 7: orderStarted must be/)
  t.match(text, /line 8: unknown key "extra"/)
  t.match(text, /line 9: name must be a positive integer/)
  t.match(text, /line 11: not a JSON object/)
  t.match(text, /line 12: orderStarted is not a real date/)
  t.notMatch(text, /line 10:/)
  const store = new HistoryStore(historyFile(dir))
  t.teardown(() => store.close())
  t.equal(store.list({}, { offset: 0, limit: 10 }).count, 2, 'the two valid lines were added')
  t.match(store.get(uuidOf(8)), { orderType: 'ON_PREMISE', locationName: 4, orderLocated: 1795341660000 })
  t.ok(store.has(uuidOf(1)))
})

t.test('export csv with --from/--to in the gateway timezone read from its settings file', async (t) => {
  const dir = t.testdir({
    'settings.db': [
      JSON.stringify({ key: 'settings', timezone: 'UTC', _id: 'a' }),
      JSON.stringify({ key: 'settings', timezone: '+02:00', zigbeePreset: 'A', targetTimeDefault: 300, _id: 'a' }),
      '{"torn',
    ].join('\n'),
  })
  t.equal(storedTimezone(dir), '+02:00')
  seed(dir, [
    summary(1, { orderStarted: Date.parse('2026-11-21T21:59:59Z') }),
    summary(2, { orderStarted: Date.parse('2026-11-21T22:00:00Z'), locationName: 5, orderLocated: Date.parse('2026-11-21T22:01:00Z') }),
    summary(3, { orderStarted: Date.parse('2026-11-22T21:59:59Z'), locationName: null }),
    summary(4, { orderStarted: Date.parse('2026-11-22T22:00:00Z') }),
  ])
  const io = captureIo()
  await historyExport(dir, { format: 'csv', from: '2026-11-22', to: '2026-11-23' }, io.io)
  t.same(io.out().trimEnd().split('\n'), [
    'uuid,name,orderType,locationName,orderStarted,orderLocated,orderCleared',
    `${uuidOf(2)},3,ON_PREMISE,5,2026-11-22T00:00:00+02:00,2026-11-22T00:01:00+02:00,2026-11-22T00:05:00+02:00`,
    `${uuidOf(3)},4,TO_GO,,2026-11-22T23:59:59+02:00,,2026-11-23T00:04:59+02:00`,
  ])
  await t.rejects(historyExport(dir, { format: 'xml' }, captureIo().io), /--format must be ndjson or csv/)
  await t.rejects(historyExport(dir, { from: 'yesterday' }, captureIo().io), /--from must be YYYY-MM-DD/)
  await t.rejects(historyExport(path.join(dir, 'elsewhere'), {}, captureIo().io), /no history at/)
})

t.test('--from/--to take a date, a date and time, or one with an offset', async (t) => {
  t.equal(parseBound('2026-11-22', 'from', '+01:00'), Date.parse('2026-11-21T23:00:00Z'))
  t.equal(parseBound('2026-11-22 10:00:00', 'from', '+01:00'), Date.parse('2026-11-22T09:00:00Z'))
  t.equal(parseBound('2026-11-22T10:00:00Z', 'from', '+01:00'), Date.parse('2026-11-22T10:00:00Z'))
  t.throws(() => parseBound('22/11/2026', 'to', 'UTC'), /--to must be/)
})

t.test('the progress bar redraws in place on a terminal and prints a line per 10 % otherwise', async (t) => {
  let tty = ''
  const onTty = progressBar(100, { write: (s: string) => (tty += s), isTTY: true })
  onTty(100, 1000)
  t.match(tty, /^\r\[#{30}\] 100% 1,000 lines\n$/)
  let plain = ''
  const onPipe = progressBar(1000, { write: (s: string) => (plain += s), isTTY: false })
  for (let done = 0; done <= 1000; done += 50) onPipe(done, done)
  t.equal(plain.trimEnd().split('\n').length, 11, '0 %, 10 %, ... 100 %')
})

t.test('import works beside a running gateway holding the same history open', async (t) => {
  const dir = t.testdir()
  const gateway = new HistoryStore(historyFile(dir))
  t.teardown(() => gateway.close())
  gateway.insert(summary(1))
  const file = path.join(dir, 'in.ndjson')
  writeFileSync(file, `${JSON.stringify({ uuid: uuidOf(2), name: 2, orderType: 'TO_GO', orderStarted: 0, orderCleared: 1000 })}\n`)
  await historyImport(dir, file, captureIo().io)
  t.equal(gateway.list({}, { offset: 0, limit: 10 }).count, 2)
  gateway.insert(summary(3))
  t.equal(gateway.list({}, { offset: 0, limit: 10 }).count, 3)
})

t.test('the gateway command: flags parse as values, export streams, no control socket needed', async (t) => {
  const dir = t.testdir()
  seed(dir)
  const env: NodeJS.ProcessEnv = { ...process.env, TZ: 'UTC' }
  delete env.GATEWAY_CONFIG
  delete env.GATEWAY_DATA_DIR
  const options = { env, cwd: dir }
  const csv = await run(process.execPath, [cli, 'history', 'export', '--format', 'csv', '--from', '2026-11-22 10:02:00', '--data-dir', dir], options)
  t.same(
    csv.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split(',')[0]),
    ['uuid', uuidOf(2), uuidOf(3)],
  )
  t.ok(csv.stdout.endsWith('00\n'), 'no extra blank line after the stream')
  const bad = path.join(dir, 'bad.ndjson')
  writeFileSync(bad, '{"uuid":1}\n')
  const failed = await run(process.execPath, [cli, 'history', 'import', bad, '--data-dir', dir], options).then(
    () => undefined,
    (error: { code: number; stderr: string }) => error,
  )
  t.equal(failed?.code, 1)
  t.match(failed?.stderr, /line 1: uuid must be a UUID/)
  const usage = await run(process.execPath, [cli, 'history', 'nothing', '--data-dir', dir], options).catch((e) => e)
  t.match(usage.stderr, /history import <file.ndjson>/)
})
