// `gateway fleet tail [--site X]`: subscribes to the fleet broker from the config and prints
// the live stream until Ctrl-C. It talks to the broker, not to the running gateway.
import { loadConfig } from '../../lib/config.ts'
import type { CliCommand } from './cli-command.ts'

export const fleetCliCommand: CliCommand = async (positionals, flags) => {
  const [sub, ...rest] = positionals
  if (sub !== 'tail') throw new Error('usage: gateway fleet tail [--site X]')
  // parseArgs runs non-strict, so "--site X" arrives as a flag plus a positional.
  const site = typeof flags.site === 'string' ? flags.site : flags.site === true ? rest[0] : undefined
  if (flags.site === true && site === undefined) throw new Error('--site needs a site id')
  const config = loadConfig({ configPath: flags.config as string | undefined, dataDir: flags['data-dir'] as string | undefined })
  const controller = new AbortController()
  const stop = () => controller.abort()
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  // mqtt.js is loaded by this command only, not by every `gateway` command (start included).
  const { tailFleet } = await import('../../lib/fleet/tail.ts')
  await tailFleet({ config: config.fleet, site, write: (line) => console.log(line), signal: controller.signal })
  return '# tail stopped'
}
