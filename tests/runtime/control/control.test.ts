import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import superjson from 'superjson'
import { ControlServer, controlSocketPath, sendControl } from '../../../runtime/control/control.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'

t.test('commands round-trip with superjson (Dates and Maps survive)', async (t) => {
  const dir = t.testdir({})
  const control = new ControlServer(memoryLogger().log)
  control.register('echo', (args) => ({ at: new Date(0), map: new Map([['a', 1]]), args }))
  control.register('fail', () => {
    throw new Error('nope')
  })
  t.throws(() => control.register('echo', () => 1), /registered twice/)
  await control.listen(dir)
  t.teardown(() => control.close())

  const result = (await sendControl(dir, 'echo', { x: 1 })) as { at: Date; map: Map<string, number>; args: unknown }
  t.ok(result.at instanceof Date)
  t.equal(result.map.get('a'), 1)
  t.same(result.args, { x: 1 })
  await t.rejects(sendControl(dir, 'fail'), /nope/)
  await t.rejects(sendControl(dir, 'missing'), /unknown command missing/)
  t.same(control.commands(), ['echo', 'fail'])
})

t.test('a malformed line gets an error reply, not a crash', async (t) => {
  const dir = t.testdir({})
  const control = new ControlServer(memoryLogger().log)
  control.register('ping', () => 'pong')
  const socketPath = await control.listen(dir)
  t.teardown(() => control.close())
  const reply = await new Promise<string>((resolve) => {
    const socket = net.connect(socketPath, () => socket.write('not json\n'))
    socket.on('data', (chunk) => {
      resolve(String(chunk))
      socket.end()
    })
  })
  t.match(superjson.parse<{ ok: boolean; error: string }>(reply.trim()), { ok: false, error: 'malformed message' })
  t.equal(await sendControl(dir, 'ping'), 'pong')
})

t.test('a stale socket file from a killed gateway does not block start-up', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(path.join(dir, 'gateway.sock'), '')
  t.equal(controlSocketPath(dir), path.join(dir, 'gateway.sock'), 'short data dirs keep the socket inside')
  const control = new ControlServer(memoryLogger().log)
  await control.listen(dir)
  await control.close()
  t.pass('listened over a stale file')
})

t.test('a data dir too deep for a Unix socket path gets a socket in the temp dir', async (t) => {
  const deep = `/var/lib/${'x'.repeat(120)}`
  const socketPath = controlSocketPath(deep)
  t.ok(socketPath.startsWith(tmpdir()))
  t.equal(controlSocketPath(deep), socketPath, 'stable for the same data dir')
  t.not(controlSocketPath(`${deep}y`), socketPath)
})
