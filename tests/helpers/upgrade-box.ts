// An installed box for `gateway upgrade` tests: deploy/install.sh into a throwaway root
// (--test-mode, Node from a local mirror, a release key trusted), its config pointed at the
// root's data dir, the service run by the stand-in service manager (service-stand-in.ts)
// with the unit's start-up check before each start; and release archives of this checkout
// at other versions, signed, as scripts/make-release.sh lays them out.
import { execFileSync, spawn } from 'node:child_process'
import { createHash, generateKeyPairSync } from 'node:crypto'
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { signRelease } from '../../lib/release/signature.ts'
import { checkAnswersFrom } from './checked-origins.ts'
import { makeMirror } from './node-mirror.ts'
import { ServiceStandIn } from './service-stand-in.ts'
import { until } from './until.ts'

const projectRoot = path.resolve(import.meta.dirname, '../..')
const parts = ['bin', 'lib', 'runtime', 'functions', 'web', 'deploy', 'docs', 'package.json', 'package-lock.json', 'gateway.config.json', 'README.md']
export const installedVersion = (JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version

export function keyPair(dir: string, name: string): { privatePem: string; publicFile: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const publicFile = path.join(dir, `${name}.pub`)
  writeFileSync(publicFile, publicKey.export({ type: 'spki', format: 'pem' }))
  return { privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, publicFile }
}

export interface ReleaseOptions {
  privatePem?: string
  /** The release exits at `gateway start` after writing into the data dir (a migration cut short). */
  crashAtStart?: boolean
  dataFormat?: number
  /** Its compiled tree cannot be built (runtime/build/build.ts exits 1). */
  brokenBuild?: boolean
}

/** tracker-gateway-<version>.tar.gz (and .sig when a key is given) of this checkout's files in `dir`. */
export function makeRelease(dir: string, version: string, options: ReleaseOptions = {}): string {
  const name = `tracker-gateway-${version}`
  const tree = path.join(dir, `tree-${version}`, name)
  mkdirSync(tree, { recursive: true })
  for (const part of parts) cpSync(path.join(projectRoot, part), path.join(tree, part), { recursive: true, filter: (from) => !from.includes('/node_modules') })
  const pkg = JSON.parse(readFileSync(path.join(tree, 'package.json'), 'utf8')) as Record<string, unknown>
  pkg.version = version
  if (options.dataFormat !== undefined) pkg.trackerGateway = { dataFormat: options.dataFormat }
  writeFileSync(path.join(tree, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`)
  if (options.crashAtStart) {
    const entry = path.join(tree, 'bin/gateway.js')
    const crash = [
      "import { writeFileSync as crashWrite } from 'node:fs'",
      "if (process.argv.includes('start')) {",
      `  crashWrite(process.env.GATEWAY_DATA_DIR + '/migrated-by-${version}', 'half')`,
      "  console.error('this release cannot start')",
      '  process.exit(3)',
      '}',
      '',
    ].join('\n')
    const source = readFileSync(entry, 'utf8')
    const afterImports = source.indexOf('\nconst root')
    writeFileSync(entry, `${source.slice(0, afterImports)}\n${crash}${source.slice(afterImports)}`)
  }
  if (options.brokenBuild) writeFileSync(path.join(tree, 'runtime/build/build.ts'), "console.error('cannot build')\nprocess.exit(1)\n")
  const archive = path.join(dir, `${name}.tar.gz`)
  execFileSync('tar', ['-czf', archive, '-C', path.dirname(tree), name])
  if (options.privatePem) {
    const sha256 = createHash('sha256').update(readFileSync(archive)).digest('hex')
    writeFileSync(`${archive}.sig`, JSON.stringify(signRelease(options.privatePem, path.basename(archive), version, sha256)))
  }
  return archive
}

export interface Box {
  root: string
  dataDir: string
  service: ServiceStandIn
  /** The installed `gateway` command with the stand-in's systemctl on PATH (never spawnSync: the stand-in answers from this process). */
  gateway(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }>
  /** The environment the command runs in (the stand-in's systemctl first on PATH). */
  commandEnv(): NodeJS.ProcessEnv
  port(): number
  api(pathname: string, init?: RequestInit): Promise<Response>
  close(): Promise<void>
}

export interface BoxOptions {
  /** More of gateway.config.json (a fleet section for a site of a chain). */
  config?: Record<string, unknown>
  /** Play deploy/tracker-gateway-rollout.path: `gateway upgrade --queued ARGS` whenever a rollout queues an upgrade. */
  rolloutArgs?: string[]
}

export async function installBox(dir: string, publicKey: string, options: BoxOptions = {}): Promise<Box> {
  const root = path.join(dir, 'root')
  // Not spawnSync: several boxes may install at once (tests/deploy/rollout.test.ts).
  const installed = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
    const child = spawn(
      'bash',
      [path.join(projectRoot, 'deploy/install.sh'), 'install', '--root', root, '--test-mode', '--node-dist', makeMirror(dir), '--release-key', publicKey],
      { env: { ...process.env, TRACKER_NODE_ARCH: 'x86_64', npm_config_prefer_offline: 'true' }, stdio: ['ignore', 'ignore', 'pipe'] },
    )
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('close', (status) => resolve({ status, stderr }))
  })
  if (installed.status !== 0) throw new Error(`install.sh failed: ${installed.stderr}`)
  const dataDir = path.join(root, 'var/lib/tracker-gateway')
  const config = path.join(root, 'etc/tracker-gateway/gateway.config.json')
  writeFileSync(config, JSON.stringify({ port: 0, host: '127.0.0.1', dataDir, mdns: { enabled: false }, ...options.config }))
  const command = path.join(root, 'usr/local/bin/gateway')
  const { GATEWAY_CONFIG: _c, GATEWAY_DATA_DIR: _d, GATEWAY_INSTALL_ROOT: _r, ...clean } = process.env
  const service = new ServiceStandIn(dir, {
    command: path.join(root, 'usr/local/lib/tracker-gateway/node/bin/node'),
    args: ['--disable-warning=ExperimentalWarning', path.join(root, 'opt/tracker-gateway/bin/gateway.js'), 'start'],
    env: { ...clean, GATEWAY_CONFIG: config, GATEWAY_DATA_DIR: dataDir, GATEWAY_INSTALL_ROOT: root },
    cwd: path.join(root, 'opt/tracker-gateway'),
    preStart: [{ command, args: ['upgrade', '--recover'], mayFail: true }],
    logFile: path.join(dir, 'service.log'),
  })
  await service.listen()
  const env = () => ({ ...clean, PATH: service.path() })
  if (options.rolloutArgs) {
    service.watchPath(path.join(dataDir, 'rollout/request.json'), {
      command,
      args: ['upgrade', '--queued', ...options.rolloutArgs],
      env: clean,
      logFile: path.join(dir, 'rollout-upgrade.log'),
    })
  }
  const box: Box = {
    root,
    dataDir,
    service,
    gateway: (...args) =>
      new Promise((resolve) => {
        const child = spawn(command, args, { env: env(), cwd: dir })
        let stdout = ''
        let stderr = ''
        child.stdout.on('data', (chunk) => (stdout += chunk))
        child.stderr.on('data', (chunk) => (stderr += chunk))
        child.on('close', (status) => resolve({ status, stdout, stderr }))
      }),
    commandEnv: env,
    port: () => (JSON.parse(readFileSync(path.join(dataDir, 'gateway.owner.json'), 'utf8')) as { port: number }).port,
    // Held to the OpenAPI document (./checked-origins.ts) while the call lasts: the port changes with each restart.
    api: async (pathname, init) => {
      const unchecked = checkAnswersFrom(`http://127.0.0.1:${box.port()}`)
      try {
        return await fetch(`http://127.0.0.1:${box.port()}${pathname}`, init)
      } finally {
        unchecked()
      }
    },
    close: () => service.close(),
  }
  await service.start()
  await waitAnswers(box)
  return box
}

/** Until the box's gateway answers on HTTP (the version it answers with). */
export async function waitAnswers(box: Box, timeoutMs = 120_000): Promise<string> {
  let version = ''
  await until(
    async () => {
      try {
        const body = (await (await box.api('/api/v2/capabilities')).json()) as { capabilities: { appBundleVersion: string } }
        version = body.capabilities.appBundleVersion
        return true
      } catch {
        return false
      }
    },
    'the gateway to answer',
    timeoutMs,
  )
  return version
}

/** Starts an order on the box through v1 (a simulated tracker): its answer's status. */
export async function startOrder(box: Pick<Box, 'api'>, name: number, locationName: number): Promise<number> {
  const answer = await box.api('/api/v1/activeorders?dummy_tracker_address=true', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, locationName }),
  })
  return answer.status
}

/** The numbers of the box's active orders: what an upgrade must keep. */
export async function activeOrderNumbers(box: Pick<Box, 'api'>): Promise<number[]> {
  const { items } = (await (await box.api('/api/v1/activeorders')).json()) as { items: { name: unknown }[] }
  return items.map((order) => Number(order.name))
}
