// How the `gateway` command finds the running gateway it talks to: the data dir resolved
// exactly as `gateway start` resolves it (--data-dir, GATEWAY_DATA_DIR, --config,
// GATEWAY_CONFIG, ./gateway.config.json, the installed config). When nothing runs there and
// the data dir was not named explicitly, the one gateway of this user that runs elsewhere
// (the registry) is used instead; otherwise the error names every data dir looked in.
import { dataDirSource, type ConfigOverrides } from '../../lib/config.ts'
import { gatewayRunsOn, registryDir, runningGateways, type RegisteredGateway } from '../wiring/gateway-registry.ts'

export interface GatewayTarget {
  /** The data dir whose control socket the command uses. */
  dataDir: string
  /** Set when it is not the resolved one: says which gateway was picked instead. */
  note?: string
  /** For the error when no gateway answers: the data dirs looked in. */
  lookedIn: string
}

export interface LocateOptions {
  overrides: ConfigOverrides
  resolvedDataDir: string
  env?: NodeJS.ProcessEnv
  cwd?: string
  registry?: string
}

export function describeGateway(entry: RegisteredGateway): string {
  return `data dir ${entry.dataDir} (PID ${entry.pid}, port ${entry.port})`
}

export function locateGateway(options: LocateOptions): GatewayTarget {
  const { overrides, resolvedDataDir } = options
  const env = options.env ?? process.env
  const source = dataDirSource(overrides, env, options.cwd)
  const registry = options.registry ?? registryDir()
  const explicit = overrides.dataDir !== undefined || env.GATEWAY_DATA_DIR !== undefined
  const running = runningGateways(registry)
  const lookedIn = `looked in data dir ${resolvedDataDir} (from ${source})${explicit ? '' : ` and for gateways registered in ${registry}${running.length ? `: ${running.map(describeGateway).join('; ')}` : ' (none)'}`}`
  const target = { dataDir: resolvedDataDir, lookedIn }
  if (explicit || gatewayRunsOn(resolvedDataDir)) return target
  const others = running.filter((entry) => entry.dataDir !== resolvedDataDir)
  if (others.length !== 1) return target
  return { dataDir: others[0].dataDir, note: `using the gateway on ${describeGateway(others[0])}`, lookedIn }
}
