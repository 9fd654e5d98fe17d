// The memory benchmark's table line (bench/memory-table.ts): measured, target, ratio, verdict.
import t from 'tap'
import { memoryRow, memoryTargets } from '../../bench/memory-table.ts'

t.test('a line says the figure, its target, the ratio and whether it is met', async (t) => {
  const under = memoryRow('idle RSS, gateway', 63, memoryTargets.idleGatewayMB)
  t.match(under, /^idle RSS, gateway\s+63 MB {2}≤ 70 MB\s+0\.90 {2}met$/)
  t.match(memoryRow('idle RSS, gateway', 71.5, 70), /1\.02 {2}MISSED$/)
  t.match(memoryRow('peak RSS', 130, 135.8, '≤ zigbee2mqtt 135.8 MB'), /≤ zigbee2mqtt 135\.8 MB\s+0\.96 {2}met$/)
  t.same(memoryTargets, { idleGatewayMB: 70, idleWithRadioMB: 150 }, "the issue's targets")
})
