// `gateway status`: whether a gateway runs on the data dir the command resolves (or the one
// it found in the registry), with its PID, port and board addresses, and the other gateways
// of this user. The answer to "another gateway on 8000?" when a port is in use.
import type { CliCommand } from './cli-command.ts'
import { GatewayUnreachableError, sendControl } from '../control/control.ts'
import { readDataDirOwner } from '../wiring/data-dir-lock.ts'
import { describeGateway } from './gateway-locate.ts'
import { isAlive, runningGateways } from '../wiring/gateway-registry.ts'
import { boardUrls } from '../wiring/process-parts.ts'
import { describeRadio, type RadioSummary } from './radio-summary.ts'

export function statusCommand(registry?: string): CliCommand {
  return async (_positionals, _flags, dataDir) => {
    const owner = readDataDirOwner(dataDir)
    const others = runningGateways(registry).filter((entry) => entry.dataDir !== dataDir)
    const otherLines = others.length ? ['', 'other gateways of this user:', ...others.map((entry) => `  ${describeGateway(entry)}`)] : []
    if (!owner || !isAlive(owner.pid)) throw new GatewayUnreachableError([`no gateway runs on data dir ${dataDir}`, ...otherLines].join('\n'))
    // Answers only if the process is a gateway that serves its control socket.
    await sendControl(dataDir, 'button.status', {}, 5_000)
    const radio = (await sendControl(dataDir, 'radio.summary', {}, 5_000)) as RadioSummary
    const port = owner.port ?? 'not yet listening'
    const boards = owner.port !== null ? boardUrls(owner.host ?? '0.0.0.0', owner.port).map((url) => `board: ${url}`) : []
    return [`gateway running: PID ${owner.pid}, port ${port}, data dir ${dataDir}, since ${new Date(owner.startedAt).toISOString()}`, describeRadio(radio), ...boards, ...otherLines].join('\n')
  }
}
