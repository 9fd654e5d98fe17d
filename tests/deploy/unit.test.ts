// The systemd unit's device rules: the coordinator may sit on a USB serial adapter
// (ttyUSB), a USB CDC stick (ttyACM) or the Pi's own UART (ttyAMA: RaspBee II and other GPIO
// hats). DevicePolicy=closed refuses every other device node.
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
