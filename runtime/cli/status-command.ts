// `gateway status`: whether a gateway runs on the data dir the command resolves (or the one
// it found in the registry), with its PID, port and board addresses, and the other gateways
// of this user. The answer to "another gateway on 8000?" when a port is in use.
import type { CliCommand } from './cli-command.ts'
import { GatewayUnreachableError, sendControl } from '../control/control.ts'
import { readDataDirOwner } from '../wiring/data-dir-lock.ts'
import { describeGateway } from './gateway-locate.ts'
import { isAlive, runningGateways } from '../wiring/gateway-registry.ts'
import { boardUrls } from '../wiring/process-parts.ts'
import { describeClock } from './clock-commands.ts'
import type { ClockState } from '../../lib/kernel/clock-watch.ts'
import { describeBackupStatus } from './backup-commands.ts'
import type { BackupStatusView } from '../../lib/backup/record.ts'
import { describeRadioSummary, type RadioSummary } from './radio-upkeep-commands.ts'
import { tlsStatusLines } from './tls-commands.ts'
import { describeJournal, readJournal } from '../upgrade/journal.ts'
import { installLayout } from '../upgrade/layout.ts'

export function statusCommand(registry?: string): CliCommand {
  return async (_positionals, _flags, dataDir) => {
    const owner = readDataDirOwner(dataDir)
    const others = runningGateways(registry).filter((entry) => entry.dataDir !== dataDir)
    const otherLines = others.length ? ['', 'other gateways of this user:', ...others.map((entry) => `  ${describeGateway(entry)}`)] : []
    if (!owner || !isAlive(owner.pid)) throw new GatewayUnreachableError([`no gateway runs on data dir ${dataDir}`, ...otherLines].join('\n'))
    // Answers only if the process is a gateway that serves its control socket.
    await sendControl(dataDir, 'button.status', {}, 5_000)
    const port = owner.port ?? 'not yet listening'
    const boards = owner.port !== null ? boardUrls(owner.host ?? '0.0.0.0', owner.port).map((url) => `board: ${url}`) : []
    // A gateway from before the clock watch has no clock.status: no line.
    const clock = await sendControl(dataDir, 'clock.status', {}, 5_000).then(
      (state) => [describeClock(state as ClockState)],
      () => [],
    )
    const backup = (await sendControl(dataDir, 'backup.status', {}, 5_000).catch(() => null)) as BackupStatusView | null
    const backupLines = backup ? describeBackupStatus(backup) : []
    // The coordinator stick (type, firmware, IEEE address), or why the radio is down.
    const radio = await sendControl(dataDir, 'radio.summary', {}, 5_000).then(
      (summary) => [describeRadioSummary(summary as RadioSummary)],
      () => [],
    )
    const tls = await tlsStatusLines(dataDir)
    // The last `gateway upgrade` (on an installed box: runtime/upgrade/layout.ts), how it ended and why.
    const journal = readJournal(installLayout().journal)
    const upgrade = journal ? [describeJournal(journal)] : []
    return [
      `gateway running: PID ${owner.pid}, port ${port}, data dir ${dataDir}, since ${new Date(owner.startedAt).toISOString()}`,
      ...radio,
      ...boards,
      ...tls,
      ...clock,
      ...backupLines,
      ...upgrade,
      ...otherLines,
    ].join('\n')
  }
}
