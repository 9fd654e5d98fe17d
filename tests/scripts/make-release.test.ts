// scripts/make-release.sh: the archive an installer copies to a box without access to our
// repository holds what deploy/install.sh needs, nothing from tests/, and installs from its
// unpacked directory (--test-mode against a throwaway root, Node from a local mirror); with a
// signing key it is signed (scripts/release-key.ts makes the pair).
import { execFileSync, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { makeMirror } from '../helpers/node-mirror.ts'
import { parseSignature, parseTrustedKey, verifyRelease } from '../../lib/release/signature.ts'

const projectRoot = path.resolve(import.meta.dirname, '../..')
const version = (JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version
const name = `tracker-gateway-${version}`

t.test('the release archive holds the installable app and installs from where it is unpacked', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'rel-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const made = spawnSync('bash', [path.join(projectRoot, 'scripts/make-release.sh'), path.join(dir, 'out')], { encoding: 'utf8' })
  t.equal(made.status, 0, made.stderr)
  const archive = path.join(dir, 'out', `${name}.tar.gz`)
  t.match(made.stdout, `${archive} (commit `)
  t.match(readFileSync(`${archive}.sha256`, 'utf8'), new RegExp(`^[0-9a-f]{64}  ${name}\\.tar\\.gz\\n$`))

  const entries = execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' }).trim().split('\n')
  t.ok(
    entries.every((entry) => entry.startsWith(`${name}/`)),
    'everything under one versioned directory',
  )
  const top = new Set(entries.map((entry) => entry.split('/')[1]).filter(Boolean))
  t.same([...top].sort(), [
    'README.md',
    'bin',
    'deploy',
    'docs',
    'functions',
    'gateway.config.json',
    'lib',
    'package-lock.json',
    'package.json',
    'runtime',
    'web',
  ])
  for (const needed of ['deploy/install.sh', 'deploy/tracker-gateway.service', 'runtime/cli.ts', 'functions/_manifest.gen.ts', 'web/index.html']) {
    t.ok(entries.includes(`${name}/${needed}`), `holds ${needed}`)
  }

  execFileSync('tar', ['-xzf', archive, '-C', dir])
  const unpacked = path.join(dir, name)
  const root = path.join(dir, 'root')
  const installed = spawnSync('bash', [path.join(unpacked, 'deploy/install.sh'), 'install', '--root', root, '--test-mode', '--node-dist', makeMirror(dir)], {
    encoding: 'utf8',
    env: { ...process.env, TRACKER_NODE_ARCH: 'x86_64', npm_config_prefer_offline: 'true' },
  })
  t.equal(installed.status, 0, installed.stderr)
  t.ok(existsSync(path.join(root, 'opt/tracker-gateway/runtime/cli.ts')), 'the app installed from the archive')
  t.ok(existsSync(path.join(root, 'opt/tracker-gateway/node_modules/zigbee-herdsman')), 'with its production dependencies')
  t.equal(readFileSync(path.join(root, 'opt/tracker-gateway/package.json'), 'utf8'), readFileSync(path.join(unpacked, 'package.json'), 'utf8'))
})

t.test('with a signing key the archive gets a detached Ed25519 signature the public key verifies', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'rel-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const node = path.join(projectRoot, 'node_modules/.bin/node')
  const keygen = spawnSync(node, ['--disable-warning=ExperimentalWarning', path.join(projectRoot, 'scripts/release-key.ts'), 'keygen', dir, 'chain'], {
    encoding: 'utf8',
  })
  t.equal(keygen.status, 0, keygen.stderr)
  t.equal(statSync(path.join(dir, 'chain.key')).mode & 0o777, 0o600, 'the private key is readable by its owner only')
  const again = spawnSync(node, ['--disable-warning=ExperimentalWarning', path.join(projectRoot, 'scripts/release-key.ts'), 'keygen', dir, 'chain'], {
    encoding: 'utf8',
  })
  t.equal(again.status, 1)
  t.match(again.stderr, /chain\.key exists: not overwritten/)

  const unsigned = spawnSync('bash', [path.join(projectRoot, 'scripts/make-release.sh'), path.join(dir, 'plain')], { encoding: 'utf8' })
  t.equal(unsigned.status, 0, unsigned.stderr)
  t.match(unsigned.stderr, /no signing key .* the archive is unsigned and gateway upgrade refuses it/)
  t.notOk(existsSync(path.join(dir, 'plain', `${name}.tar.gz.sig`)))

  const made = spawnSync('bash', [path.join(projectRoot, 'scripts/make-release.sh'), '--key', path.join(dir, 'chain.key'), path.join(dir, 'out')], {
    encoding: 'utf8',
  })
  t.equal(made.status, 0, made.stderr)
  const archive = path.join(dir, 'out', `${name}.tar.gz`)
  const signature = parseSignature(readFileSync(`${archive}.sig`, 'utf8'))
  const sha256 = createHash('sha256').update(readFileSync(archive)).digest('hex')
  const trusted = parseTrustedKey('chain.pub', readFileSync(path.join(dir, 'chain.pub'), 'utf8'))
  t.match(verifyRelease(signature, sha256, [trusted]), { version, source: 'chain.pub' })
  t.equal(signature.file, `${name}.tar.gz`)
})
