// `gateway status` says which radio runs: the simulated one plainly, the Zigbee one up or
// down with why (through the control socket of a real gateway in cli.test.ts).
import t from 'tap'
import { ControlServer, sendControl } from '../../../runtime/control/control.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import type { RadioInfo } from '../../../lib/radio/radio.ts'
import { describeRadio, registerRadioSummary } from '../../../runtime/cli/radio-summary.ts'

const info = (overrides: Partial<RadioInfo>): RadioInfo => ({ kind: 'zigbee', up: true, eui64: '00:12:4b:00:01:02:03:04', channel: 15, panId: 1, permitJoinUntil: null, ...overrides })

t.test('the words for each radio', async (t) => {
  t.equal(describeRadio({ kind: 'simulated', up: true, lastError: null }), 'radio: simulated (no Zigbee stick is used: set "radio" in the config, docs/operations.md "Configure")')
  t.equal(describeRadio({ kind: 'zigbee', up: true, lastError: null }), 'radio: zigbee, up')
  t.equal(describeRadio({ kind: 'zigbee', up: false, lastError: 'no answer from the stick' }), 'radio: zigbee, down: no answer from the stick')
  t.equal(describeRadio({ kind: 'zigbee', up: false, lastError: null }), 'radio: zigbee, down')
})

t.test('radio.summary over the control socket: kind, up and the last error of the radio process', async (t) => {
  const dataDir = t.testdir()
  const control = new ControlServer(memoryLogger('warn').log)
  let current = info({ kind: 'simulated' })
  registerRadioSummary(control, { info: async () => current })
  await control.listen(dataDir)
  t.teardown(() => control.close())
  t.same(await sendControl(dataDir, 'radio.summary'), { kind: 'simulated', up: true, lastError: null })
  current = info({ up: false, supervision: { lastError: 'radio process exited (code 1)', restarts: 2, nextAttemptAt: null, rss: null, pid: null } })
  t.same(await sendControl(dataDir, 'radio.summary'), { kind: 'zigbee', up: false, lastError: 'radio process exited (code 1)' })
})
