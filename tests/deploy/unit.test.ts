// The systemd unit's device rules: the coordinator may sit on a USB serial adapter
// (ttyUSB), a USB CDC stick (ttyACM) or the Pi's own UART (ttyAMA: RaspBee II and other GPIO
// hats). DevicePolicy=closed refuses every other device node. And the node flags it runs the
// gateway with (heap, module loading) are the ones npm start and bin/gateway.js use.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'

const unit = readFileSync(path.resolve(import.meta.dirname, '../../deploy/tracker-gateway.service'), 'utf8')
const allowed = [...unit.matchAll(/^DeviceAllow=char-(\S+) rw$/gm)].map((match) => match[1])

t.test('the unit lets the gateway open every kind of coordinator port, and nothing else', async (t) => {
  t.match(unit, /^DevicePolicy=closed$/m)
  t.same(allowed.sort(), ['ttyACM', 'ttyAMA', 'ttyUSB'])
  t.match(unit, /^SupplementaryGroups=dialout$/m, 'the serial devices belong to dialout')
})

t.test('the unit, npm start and bin/gateway.js (run by an older Node, it starts itself again) give the gateway the same node flags', async (t) => {
  const root = path.resolve(import.meta.dirname, '../..')
  const flagsOf = (line: string) => line.split(/\s+/).filter((word) => /^--(max-|expose-gc|preserve-symlinks)/.test(word))
  const execStart = /^ExecStart=(.*)$/m.exec(unit)![1]
  const start = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start
  const rerunSource = readFileSync(path.join(root, 'bin/gateway.js'), 'utf8')
  const rerun = ['gatewayMemoryFlags', 'loaderFlags'].map((name) => new RegExp(`const ${name} = \\[([^\\]]*)\\]`).exec(rerunSource)![1]).join(',')
  const rerunFlags = [...rerun.matchAll(/'([^']+)'/g)].map((match) => match[1])
  t.ok(rerunFlags.includes('--expose-gc') && rerunFlags.includes('--preserve-symlinks'))
  t.same(flagsOf(execStart), rerunFlags, 'the unit')
  t.same(flagsOf(start), rerunFlags, 'npm start')
})
