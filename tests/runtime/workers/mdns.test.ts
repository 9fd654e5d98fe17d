import os from 'node:os'
import t from 'tap'
import { Bonjour } from 'bonjour-service'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { until } from '../../helpers/until.ts'
import { type Advertisement, guardResponder, mdnsPart } from '../../../runtime/workers/mdns.ts'

const log = memoryLogger('fatal').log

t.test('advertises _tracker-http._tcp on the HTTP port with the device id', async (t) => {
  const published: Advertisement[] = []
  let closed = 0
  const part = mdnsPart({
    enabled: true,
    port: () => 8123,
    deviceId: 'TG-ABC',
    version: '1.2.3',
    log,
    publisher: () => ({ publish: (ad) => void published.push(ad), close: async () => void closed++ }),
  })
  await part.start()
  t.same(published, [
    { name: 'Tracker Gateway TG-ABC', type: 'tracker-http', port: 8123, txt: { api: 'v1,v2', deviceId: 'TG-ABC', version: '1.2.3', path: '/api/v2' } },
  ])
  await part.stop()
  t.equal(closed, 1)
})

t.test('with HTTPS on, _tracker-https._tcp is advertised on its port with the public-key pin, and each names the other port', async (t) => {
  const published: Advertisement[] = []
  let tls: { port: number; spkiSha256: string } | null = { port: 8566, spkiSha256: 'pinAAA=' }
  const part = mdnsPart({
    enabled: true,
    port: () => 8123,
    tls: () => tls as never,
    deviceId: 'TG-ABC',
    version: '1.2.3',
    log,
    publisher: () => ({ publish: (ad) => void published.push(ad), close: async () => {} }),
  })
  await part.start()
  const base = { api: 'v1,v2', deviceId: 'TG-ABC', version: '1.2.3', path: '/api/v2' }
  t.same(published, [
    { name: 'Tracker Gateway TG-ABC', type: 'tracker-http', port: 8123, txt: { ...base, https: '8566' } },
    { name: 'Tracker Gateway TG-ABC', type: 'tracker-https', port: 8566, txt: { ...base, http: '8123', spki: 'pinAAA=' } },
  ])
  await part.stop()
  // HTTPS configured but not serving (null status): HTTP alone, without a dangling https key.
  tls = null
  published.length = 0
  await part.start()
  t.same(published, [{ name: 'Tracker Gateway TG-ABC', type: 'tracker-http', port: 8123, txt: base }])
  await part.stop()
})

t.test('mdns.enabled false advertises nothing', async (t) => {
  let created = 0
  const part = mdnsPart({
    enabled: false,
    port: () => 1,
    deviceId: 'x',
    version: '1',
    log,
    publisher: () => (created++, { publish() {}, close: async () => {} }),
  })
  await part.start()
  await part.stop()
  t.equal(created, 0)
})

t.test('a failing responder does not stop the gateway', async (t) => {
  const part = mdnsPart({
    enabled: true,
    port: () => 1,
    deviceId: 'x',
    version: '1',
    log,
    publisher: () => {
      throw new Error('no multicast')
    },
  })
  await t.resolves(part.start())
  await t.resolves(part.stop())
})

// Multicast needs an interface with the MULTICAST flag; loopback has none on many hosts.
const multicast = Object.values(os.networkInterfaces())
  .flat()
  .some((i) => i && !i.internal && i.family === 'IPv4')

t.test('a browser on the network finds the advertisement', { skip: multicast ? false : 'no multicast-capable interface on this host' }, async (t) => {
  const mdnsPort = 53535 + (process.pid % 1000) // a private mDNS port: never disturbs a real responder
  const part = mdnsPart({ enabled: true, port: () => 8765, deviceId: 'TG-FIND', version: '1', log, bonjourOptions: { port: mdnsPort } })
  await part.start()
  const browser = new Bonjour({ port: mdnsPort } as never)
  t.teardown(async () => {
    await part.stop()
    await new Promise<void>((resolve) => browser.destroy(() => resolve()))
  })
  const found = await new Promise<{ name: string; port: number; txt: Record<string, string> } | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 5000)
    browser.find({ type: 'tracker-http' }, (service) => {
      if (service.name !== 'Tracker Gateway TG-FIND') return
      clearTimeout(timer)
      resolve(service as never)
    })
  })
  t.ok(found, 'found within 5 s')
  t.match(found, { port: 8765, txt: { deviceId: 'TG-FIND' } })
})

t.test('a loopback-only gateway is not advertised', async (t) => {
  const { isLoopbackHost } = await import('../../../runtime/workers/mdns.ts')
  t.equal(isLoopbackHost('127.0.0.1'), true)
  t.equal(isLoopbackHost('::1'), true)
  t.equal(isLoopbackHost('localhost'), true)
  t.equal(isLoopbackHost('0.0.0.0'), false)
  t.equal(isLoopbackHost('192.168.1.20'), false)
})

t.test("an error thrown in the responder's own timer (EMFILE from the interface list) is logged, never fatal", async (t) => {
  const memory = memoryLogger('warn')
  const mdnsPort = 54535 + (process.pid % 1000)
  const part = mdnsPart({ enabled: true, port: () => 8766, deviceId: 'TG-EMFILE', version: '1', log: memory.log, bonjourOptions: { port: mdnsPort } })
  await part.start()
  const original = os.networkInterfaces
  t.teardown(() => {
    os.networkInterfaces = original
  })
  // What a full descriptor table does to it: multicast-dns calls this every 5 s from a timer.
  os.networkInterfaces = () => {
    throw Object.assign(new Error('EMFILE: too many open files, uv_interface_addresses'), { code: 'EMFILE' })
  }
  await until(() => memory.text().includes('mDNS responder failing'), 'the failure logged (multicast-dns retries every 5 s)')
  os.networkInterfaces = original
  t.match(
    memory.lines().find((line) => line.msg === 'mDNS responder failing (retried every 5 s)'),
    { err: { code: 'EMFILE' } },
  )
  await part.stop()
})

t.test('a send that throws reaches its callback, and the failure is logged once per episode', async (t) => {
  const memory = memoryLogger('debug')
  let throwing = true
  const listeners: Record<string, (error: Error) => void> = {}
  const fake = {
    update() {
      if (throwing) throw new Error('no interfaces')
    },
    send(_value: unknown, _rinfo?: unknown, _cb?: unknown) {
      throw new Error('ERR_SOCKET_DGRAM_NOT_RUNNING')
    },
    on(event: string, listener: (error: Error) => void) {
      listeners[event] = listener
    },
  }
  guardResponder(fake, memory.log)
  const errors: unknown[] = []
  fake.send({}, null, (error?: Error | null) => errors.push(error))
  fake.send({}, (error?: Error | null) => errors.push(error))
  fake.update()
  t.equal(errors.length, 2, 'both callback positions are told')
  const failing = () => memory.lines().filter((line) => line.msg === 'mDNS responder failing (retried every 5 s)').length
  t.equal(failing(), 1, 'logged once while it keeps failing')
  throwing = false
  fake.update()
  throwing = true
  fake.update()
  t.equal(failing(), 2, 'a new episode after it worked again')
  listeners.error(new Error('EADDRINUSE'))
  listeners.warning(new Error('EADDRNOTAVAIL'))
  t.ok(memory.lines().some((line) => line.msg === 'mDNS warning'))
})

t.test('bonjour-service is imported only when advertising starts: not with mDNS off', async (t) => {
  const { execFileSync } = await import('node:child_process')
  const mdnsModule = new URL('../../../runtime/workers/mdns.ts', import.meta.url).href
  const loggerModule = new URL('../../helpers/memory-logger.ts', import.meta.url).href
  const mdnsPort = 55535 + (process.pid % 1000)
  // A child process (a fresh module cache) reports whether bonjour-service was resolved.
  const loaded = (enabled: boolean) => {
    const script = `
      import { registerHooks } from 'node:module'
      let resolved = false
      registerHooks({ resolve(specifier, context, next) { if (specifier === 'bonjour-service') resolved = true; return next(specifier, context) } })
      const { mdnsPart } = await import(${JSON.stringify(mdnsModule)})
      const { memoryLogger } = await import(${JSON.stringify(loggerModule)})
      const part = mdnsPart({ enabled: ${enabled}, port: () => 8767, deviceId: 'TG-LAZY', version: '1', log: memoryLogger('fatal').log, bonjourOptions: { port: ${mdnsPort} } })
      await part.start()
      await part.stop()
      console.log(resolved)
    `
    return execFileSync(process.execPath, ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    }).trim()
  }
  t.equal(loaded(false), 'false', 'mDNS off: not imported')
  t.equal(loaded(true), 'true', 'mDNS on: imported when it starts')
})
