// The radio process gets its own Node flags after the gateway's (lib/radio/zigbee-process-flags.ts):
// the rule for lite mode, and a real radio process from the sources on the fake coordinator,
// its command line read from /proc. The compiled tree's radio process, under lite mode:
// zigbee-process-flags-built.test.ts.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { ZigbeeProcessRadio } from '../../../lib/radio/zigbee-process.ts'
import { liteMode, radioProcessNodeFlags, radioProcessYoungGeneration } from '../../../lib/radio/zigbee-process-flags.ts'
import { FakeRemote } from '../../helpers/zigbee-fake-remote.ts'
import { TestChannel } from '../../helpers/zigbee-radio.ts'

/** The value V8 takes for a flag given several times: the last. */
const lastValue = (argv: string[], flag: string) => argv.findLast((arg) => arg.startsWith(`${flag}=`))?.slice(flag.length + 1)

const compiledChild = '/opt/tracker-gateway/build/lib/radio/zigbee-child.js'
const gatewayFlags = ['--max-old-space-size=256', '--max-semi-space-size=8', '--expose-gc', '--disable-warning=ExperimentalWarning']

t.test('lite mode only when everything the radio process loads is JavaScript', async (t) => {
  const withLite = [radioProcessYoungGeneration, liteMode]
  const without = [radioProcessYoungGeneration]
  t.same(radioProcessNodeFlags(compiledChild, gatewayFlags), withLite, 'the compiled child, as npm start forks it')
  t.same(radioProcessNodeFlags(compiledChild, []), withLite)
  t.same(
    radioProcessNodeFlags('/app/lib/radio/zigbee-child.ts', gatewayFlags),
    without,
    'the sources (npm run dev, the tests, hq): type stripping needs WebAssembly',
  )
  t.same(radioProcessNodeFlags('/app/lib/radio/zigbee-child.mts', []), without)
  for (const preload of [
    ['--import', '/app/tests/helpers/zigbee-fake-child.ts'],
    ['--import=/app/bench/fake-coordinator-preload.ts'],
    ['--import=file:///app/x.mts'],
    ['--require', './y.cts'],
    ['-r', 'z.ts'],
    ['--experimental-loader', '/app/loader.ts'],
  ]) {
    t.same(radioProcessNodeFlags(compiledChild, [...gatewayFlags, ...preload]), without, `a TypeScript preload: ${preload.join(' ')}`)
  }
  t.same(radioProcessNodeFlags(compiledChild, gatewayFlags, '--import=/app/probe.ts'), without, 'one named by NODE_OPTIONS')
  t.same(
    radioProcessNodeFlags(compiledChild, gatewayFlags, '--max-old-space-size=200  "--import=/app/a b/probe.ts"'),
    without,
    'quoted, with a space in its path',
  )
  for (const preload of [
    ['--import', '/app/node_modules/.cache/bench-fake-coordinator/bench/fake-coordinator-preload.js'],
    ['--import=file:///app/probe.mjs'],
    ['-r', 'x.cjs'],
    ['--import', 'some-package'],
  ]) {
    t.same(radioProcessNodeFlags(compiledChild, [...gatewayFlags, ...preload]), withLite, `a JavaScript preload: ${preload.join(' ')}`)
  }
  t.same(radioProcessNodeFlags(compiledChild, gatewayFlags, '--import=file:///app/probe.mjs'), withLite, 'and one in NODE_OPTIONS')
  t.same(radioProcessNodeFlags(compiledChild, gatewayFlags, ''), withLite)
})

t.test("the radio process runs with its young generation capped, after the flags it inherits and before the caller's", async (t) => {
  const remote = await FakeRemote.open(t)
  const radio = new ZigbeeProcessRadio({
    dataDir: t.testdir(),
    clock: new ManualClock(),
    channel: new TestChannel(),
    log: memoryLogger('fatal').log,
    ...remote.processOptions,
  })
  t.teardown(() => radio.stop())
  await radio.start()
  t.ok((await radio.info()).up, 'herdsman came up with the flags')
  const argv = readFileSync(`/proc/${radio.pid}/cmdline`, 'utf8').split('\0')
  t.equal(lastValue(argv, '--max-semi-space-size'), '1', 'the young generation is capped at 1 MB whatever the gateway runs with')
  const own = argv.indexOf(radioProcessYoungGeneration)
  for (const arg of process.execArgv) t.ok(argv.indexOf(arg) < own, `inherited ${arg} comes first`)
  t.ok(argv.indexOf('--import') > own, "the caller's flags come last")
  t.notOk(argv.includes(liteMode), 'from the sources, no lite mode (the child is TypeScript)')
  t.equal(remote.current!.webAssembly, true)
})
