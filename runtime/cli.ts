// The `gateway` command: `gateway start` runs the gateway; every other command talks to the
// running gateway through the control socket in its data dir.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util'
import { ConfigError, loadConfig } from '../lib/config.ts'
import { GatewayUnreachableError } from './control/control.ts'
import { locateGateway, type GatewayTarget } from './cli/gateway-locate.ts'
import { statusCommand } from './cli/status-command.ts'
import { historyCliCommand, historyCliOptions, historyUsage } from './cli/history-commands.ts'
import { simCliCommand, simCliOptions, startDemo } from './cli/sim-commands.ts'
import { tokenCliCommand, tokenCliOptions } from './cli/token-commands.ts'
import { webhooksCliCommand } from './cli/webhook-commands.ts'
import { fleetCliCommand } from './cli/fleet-cli.ts'
import { radioChannelCommand, radioCli } from './cli/radio-commands.ts'
import { probeCliCommand, probeCliOptions } from './cli/radio-probe.ts'
import { radioUpkeepSubcommands } from './cli/radio-upkeep-commands.ts'

import { newCliCommand, newEndpointHelp } from './manifest/new-endpoint.ts'
import { commandHelp } from './cli/command-help.ts'
import { buttonCliCommand } from './cli/button-commands.ts'
import { backupCliCommand, backupCliOptions, restoreCliCommand } from './cli/backup-commands.ts'
import { tlsCliCommand, tlsCliOptions } from './cli/tls-commands.ts'
import { hqCliCommand, hqCliOptions, hqUsage } from './cli/hq-commands.ts'
import { upgradeCliCommand, upgradeCliOptions, upgradeUsage } from './cli/upgrade-commands.ts'
import type { CliCommandEntry } from './cli/cli-command.ts'
import { trimAfterStartUp } from './wiring/memory-trim.ts'
import { trimMemory } from '../lib/kernel/memory-trim.ts'
import { keepTickShape } from './wiring/tick-shape.ts'

const usage = `usage: gateway <command> [options]

  start [--port N] [--data-dir DIR] [--config FILE]   run the gateway (regenerates a stale functions/_manifest.gen.ts first)
        [--demo]                                      ... and play lunch services on the simulated restaurant
  start --reference-host                              answer through the @whatwg-node/server adapter (comparison, benchmarks)
  dev [same options as start]                         run it and follow functions/: files added, changed or removed are live at once
  status                                              is a gateway running on this data dir (PID, port, board address)?
  new endpoint <METHOD> <path> [--code N] [--auth A]  write a function file, its test stub, its contract row and the manifest entry
  button                                              press the gateway button (opens the 120 s token window)
  button status                                       show whether the token window is open
  token list                                          list access tokens (name, prefix, scope, created, last used, from)
  token create <name> [--scope S]                     mint a token (scope read, screen, pos or admin; default admin), printed once
  token revoke <name>                                 revoke every access token with that name, at once
  token rename <name|prefix> <new name>               rename the tokens with that name (or that prefix, as listed)
  token scope <name|prefix> <scope>                   narrow the tokens with that name (or prefix) to a scope (never widens)
  webhooks list                                       list webhook URLs with state, backlog and signing secret (host only)
  sim start <tracker> [--to-go]                       simulated radio: hold a tracker over the dine-in (or to-go) starter
  sim place <tracker> <table>                         simulated radio: put a tracker on a table
  sim clear <tracker>                                 simulated radio: hold a tracker over the clearer
  sim status                                          simulated radio: trackers, positions, buzzing
  sim rush [--minutes N] [--pace X]                   simulated radio: play a lunch service (default 20 min at pace 1)
  sim rush stop                                       simulated radio: stop the lunch service at once
  fleet tail [--site X]                               print what sites publish to the fleet broker (config "fleet")
  radio channel [N] [--force]                         show the radio channel, or choose it (11, 15, 20 or 25) before pairing
  radio probe [--device PATH] [--adapter TYPE]        with the gateway stopped: list Zigbee sticks, try a start, say what is wrong
        [--baud N] [--rtscts] [--timeout S]
  backup [--to FILE|DIR] [--passphrase-file F]        write a backup of the running gateway (default: the configured backup directory)
  backup verify FILE [--passphrase-file F]            check a backup: manifest, checksums, passphrase, history integrity
  restore FILE [--replace] [--passphrase-file F]      with the gateway stopped: restore a backup into the data dir (empty, or moved aside with --replace)
  radio devices                                       list the Zigbee devices, failed interviews first
  radio interview <ieee>                              interview a device again (wake it first)
  radio remove <ieee> [--force]                       tell a device to leave the network and forget it (--force: also when it does not answer)
  radio map                                           each router's neighbours and link quality, as JSON
  tls status                                          the HTTPS port and its certificate's fingerprints
  tls install --cert FILE --key FILE                  serve a certificate from the restaurant's IT (checked; no restart needed)
  tls remove                                          forget the installed certificate: serve the box's own again
${upgradeUsage}
${hqUsage}

${historyUsage}

Options for commands that reach a running gateway: --data-dir DIR, --config FILE
(or GATEWAY_DATA_DIR / GATEWAY_CONFIG), resolved as \`start\` resolves them (then
./gateway.config.json, then /etc/tracker-gateway/gateway.config.json). Without an
explicit data dir, the only other gateway this user runs is used.`

/** Every command but start/dev, by name: a fixed table, each mapped to control-socket calls. */
const commands: ReadonlyMap<string, CliCommandEntry> = new Map<string, CliCommandEntry>([
  ['fleet', { run: fleetCliCommand }],
  ['sim', { run: simCliCommand, options: simCliOptions }],
  [
    'radio',
    {
      run: radioCli(new Map([['channel', radioChannelCommand], ['probe', probeCliCommand], ...radioUpkeepSubcommands])),
      options: { force: { type: 'boolean' }, ...probeCliOptions },
    },
  ],
  ['button', { run: buttonCliCommand }],
  ['token', { run: tokenCliCommand, options: tokenCliOptions }],
  ['webhooks', { run: webhooksCliCommand }],
  ['history', { run: historyCliCommand, options: historyCliOptions }],
  ['status', { run: statusCommand() }],
  ['tls', { run: tlsCliCommand, options: tlsCliOptions }],
  ['new', { run: newCliCommand, options: { code: { type: 'string' }, auth: { type: 'string' }, scope: { type: 'string' } }, help: newEndpointHelp }],
  ['backup', { run: backupCliCommand, options: backupCliOptions }],
  ['restore', { run: restoreCliCommand, options: backupCliOptions }],
  ['upgrade', { run: upgradeCliCommand, options: upgradeCliOptions }],
])
/** Commands that work on this checkout's files (new) or find their data dir themselves (upgrade), not on a located gateway. */
const checkoutCommands: ReadonlySet<string> = new Set(['new', 'upgrade'])

/** Whether this is the compiled tree (build/runtime/cli.js, bin/gateway.js) rather than the sources. */
const runsCompiled = import.meta.filename.endsWith('.js')

async function start(flags: Record<string, string | boolean | undefined>, dev: boolean): Promise<void> {
  // Never a silently stale table: a function file dropped in (or removed) since the last
  // `npm run gen` is put into the manifest before it is imported. The compiled tree was
  // built with a fresh one (runtime/build/build.ts), and is rebuilt when functions/ changes.
  const { ensureFreshManifest, functionsDir } = await import('./manifest/manifest-gen.ts')
  const regenerated = runsCompiled ? '' : await ensureFreshManifest()
  if (regenerated) console.error(`functions/_manifest.gen.ts was stale (${regenerated}): regenerated`)
  const { startGateway } = await import('./wiring/main.ts')
  // The gateway's modules are loaded: what loading them left is collected before the stores
  // and servers start, so that start-up never holds both (about 4 MB off the peak of a start,
  // for at most a few tens of ms of a start under the Pi's CPU cap now that the gateway is
  // one bundle; docs/decisions/0012-memory-trim-and-nextTick-entry.md). The map Node's nextTick entries
  // share is kept first (tick-shape.ts): such a collection would free it.
  keepTickShape()
  trimMemory()
  // Shown by ps, top and systemd instead of "MainThread" (15 characters: the kernel's limit).
  process.title = 'tracker-gateway'
  const config = loadConfig({
    configPath: flags.config as string | undefined,
    dataDir: flags['data-dir'] as string | undefined,
    port: flags.port !== undefined ? parsePort(String(flags.port)) : undefined,
  })
  // A stop asked for while starting (systemd stopping a box that is still coming up, a
  // script killing it right after its first answer) waits for the start to finish, then
  // stops as any other: without a handler, the signal killed the process mid-start (a first
  // start's certificate, made by a child process, was then never stored). A second signal
  // while starting ends it at once.
  let stopWhenStarted: string | undefined
  const duringStart = (signal: string) => {
    if (stopWhenStarted !== undefined) process.exit(1)
    stopWhenStarted = signal
  }
  process.on('SIGTERM', duringStart)
  process.on('SIGINT', duringStart)
  const gateway = await startGateway({
    config,
    watchFunctionsDir: dev ? functionsDir : undefined,
    httpHost: flags['reference-host'] ? 'reference' : 'fast',
  })
  process.off('SIGTERM', duringStart)
  process.off('SIGINT', duringStart)
  if (flags.demo === true) console.log(await startDemo(gateway.services))
  // Start-up's garbage returned to the system once the gateway is up (memory-trim.ts).
  trimAfterStartUp(({ heapBefore, heapAfter, pauseMs }) =>
    gateway.services.log.debug({ heapBefore, heapAfter, pauseMs: Math.round(pauseMs) }, 'start-up garbage collected'),
  )
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    gateway.services.log.info({ signal }, 'shutting down')
    await gateway.stop()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
  if (stopWhenStarted !== undefined) await stop(stopWhenStarted)
}

function parsePort(text: string): number {
  const port = Number(text)
  if (!/^\d+$/.test(text) || port > 65535) throw new ConfigError(`--port: "${text}" is not a port number`)
  return port
}

const globalOptions: ParseArgsOptionsConfig = {
  port: { type: 'string' },
  'data-dir': { type: 'string' },
  config: { type: 'string' },
  'reference-host': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  demo: { type: 'boolean' },
}

export async function runCli(argv: string[]): Promise<number> {
  const parse = (options: ParseArgsOptionsConfig) => parseArgs({ args: argv, allowPositionals: true, strict: false, options })
  let { values, positionals } = parse(globalOptions)
  const declared = commands.get(positionals[0] ?? '')?.options ?? (positionals[0] === 'hq' ? hqCliOptions : undefined)
  if (declared) ({ values, positionals } = parse({ ...declared, ...globalOptions }))
  const [name, ...rest] = positionals
  const ownHelp = name && values.help ? commandHelp(usage, positionals, commands.get(name)?.help) : undefined
  if (ownHelp) {
    console.log(ownHelp)
    return 0
  }
  if (!name || values.help) {
    console.log(usage)
    return name || values.help ? 0 : 1
  }
  let target: GatewayTarget | undefined
  try {
    if (name === 'start' || name === 'dev') {
      await start(values, name === 'dev')
      return -1 // keeps running
    }
    // Headquarters runs on its own machine with its own config: no gateway to locate.
    if (name === 'hq') return await hqCliCommand(rest, values)
    const command = commands.get(name)
    if (!command) {
      console.error(`unknown command "${name}"\n\n${usage}`)
      return 1
    }
    const overrides = { configPath: values.config as string | undefined, dataDir: values['data-dir'] as string | undefined }
    let dataDir = ''
    if (!checkoutCommands.has(name)) {
      target = locateGateway({ overrides, resolvedDataDir: loadConfig(overrides).dataDir })
      if (target.note) console.error(`gateway ${name}: ${target.note}`)
      dataDir = target.dataDir
    }
    const output = await command.run(rest, values, dataDir)
    // Commands that stream their own output (history export) return ''.
    if (output !== '') console.log(output)
    return 0
  } catch (error) {
    const lookedIn = error instanceof GatewayUnreachableError && target ? `\n(${target.lookedIn})` : ''
    console.error(`gateway ${name}: ${(error as Error).message}${lookedIn}`)
    return error instanceof ConfigError ? 2 : 1
  }
}

if (import.meta.main) {
  const code = await runCli(process.argv.slice(2))
  if (code >= 0) process.exit(code)
}
