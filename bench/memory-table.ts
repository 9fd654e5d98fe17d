// The memory benchmark's targets (issue 30) and its table lines (bench/memory-bench.ts).
export const memoryTargets = { idleGatewayMB: 70, idleWithRadioMB: 150 }

/** One line of the table: figure, measured, target, measured / target. */
export function memoryRow(figure: string, measuredMB: number, targetMB: number, targetText = `≤ ${targetMB} MB`): string {
  const ratio = (measuredMB / targetMB).toFixed(2)
  return `${figure.padEnd(66)} ${`${measuredMB} MB`.padStart(9)}  ${targetText.padEnd(22)} ${ratio.padStart(5)}  ${measuredMB <= targetMB ? 'met' : 'MISSED'}`
}
