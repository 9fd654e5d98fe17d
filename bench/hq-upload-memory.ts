// npm run bench:hq-upload — HQ's resident memory while it takes a large release upload
// (issue 46: HQ must not hold a whole uploaded release in memory).
//
// Real PostgreSQL and Mosquitto, one HQ instance as a real process (`gateway hq`), and an
// archive of SIZE_MIB (256, the default releases.maxBytes) random bytes with a valid
// signature, POSTed to /api/hq/releases from this process (streamed from a file, so the
// client's memory is not HQ's). HQ's VmRSS is sampled every 50 ms from /proc (VmHWM
// before and after too). HQ_ROOT runs another checkout's HQ (the same measurement of an
// older version: `git archive <commit> | tar -x -C DIR`, with node_modules linked into it).
// Prints the figures as JSON and writes them to bench/results/hq-upload-memory.json (only
// when HQ_ROOT is this checkout).
import { spawn } from 'node:child_process'
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { pipeline } from 'node:stream/promises'
import { HqTokens } from '../lib/hq/tokens.ts'
import { signRelease } from '../lib/release/signature.ts'
import { openDatabase } from '../lib/store/postgres.ts'
import { startPostgres } from '../tests/helpers/postgres.ts'
import { startBroker } from '../tests/lib/fleet/mosquitto.ts'
import { residentOf } from './process-memory.ts'

const here = path.resolve(import.meta.dirname, '..')
const root = path.resolve(process.env.HQ_ROOT ?? here)
const sizeMiB = Number(process.env.SIZE_MIB ?? 256)
const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10
const log = (line: string) => process.stderr.write(`${line}\n`)

const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-hq-upload-'))
const pg = await startPostgres({ fast: true })
const broker = await startBroker({ dir })
let child: ReturnType<typeof spawn> | undefined
try {
  const url = await pg.createDatabase('hq')
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  writeFileSync(path.join(dir, 'chain.pub'), publicKey.export({ type: 'spki', format: 'pem' }))
  const configFile = path.join(dir, 'hq.config.json')
  writeFileSync(
    configFile,
    JSON.stringify({
      port: 0,
      host: '127.0.0.1',
      postgresUrl: url,
      broker: { url: broker.url },
      instanceId: 'a',
      releases: { keys: ['chain.pub'], maxBytes: (sizeMiB + 1) * 1024 * 1024 },
    }),
  )

  // The archive, written to a file in pieces (this process does not hold it either).
  const archive = path.join(dir, 'tracker-gateway-9.9.9.tar.gz')
  const hash = createHash('sha256')
  const out = createWriteStream(archive)
  for (let i = 0; i < sizeMiB; i++) {
    const piece = randomBytes(1024 * 1024)
    hash.update(piece)
    if (!out.write(piece)) await new Promise<void>((resolve) => out.once('drain', () => resolve()))
  }
  await new Promise<void>((resolve) => out.end(() => resolve()))
  const sha256 = hash.digest('hex')
  const signature = signRelease(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, path.basename(archive), '9.9.9', sha256)

  child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', path.join(root, 'runtime/cli.ts'), 'hq', '--config', configFile], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const hq = child
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: hq.stdout! }).on('line', (line) => {
      const match = /"port":(\d+).*"hq listening"/.exec(line)
      if (match) resolve(Number(match[1]))
    })
    hq.once('exit', (code) => reject(new Error(`hq exited (${code})`)))
  })
  const db = openDatabase(url, { max: 1 })
  const { token } = await new HqTokens(db).create('bench', 'admin')
  await db.close()

  // Settled after start (the first requests compile code): one small request, then a pause.
  await new Promise((resolve) =>
    http.get(`http://127.0.0.1:${port}/api/hq/releases`, { headers: { authorization: `Bearer ${token}` } }, (res) => res.resume().on('end', resolve)),
  )
  await new Promise((resolve) => setTimeout(resolve, 1000))
  const before = residentOf(hq.pid!)!
  let peakDuring = before.rss
  const sampler = setInterval(() => {
    const now = residentOf(hq.pid!)
    if (now) peakDuring = Math.max(peakDuring, now.rss)
  }, 50)
  const started = performance.now()
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.request(`http://127.0.0.1:${port}/api/hq/releases`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/gzip',
        'content-length': String(statSync(archive).size),
        'release-signature': Buffer.from(JSON.stringify(signature)).toString('base64'),
      },
    })
    request.on('error', reject)
    request.on('response', (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
    })
    pipeline(createReadStream(archive), request).catch(reject)
  })
  const seconds = (performance.now() - started) / 1000
  clearInterval(sampler)
  const after = residentOf(hq.pid!)!
  if (answer.status !== 201) throw new Error(`upload answered ${answer.status}: ${answer.body}`)
  const result = {
    hqRoot: root === here ? 'this checkout' : root,
    archiveMiB: sizeMiB,
    uploadSeconds: Math.round(seconds * 10) / 10,
    rssBeforeMiB: mib(before.rss),
    rssPeakDuringMiB: mib(peakDuring),
    rssAfterMiB: mib(after.rss),
    hwmBeforeMiB: mib(before.peak),
    hwmAfterMiB: mib(after.peak),
    machine: { cpus: os.cpus().length, loadavg: os.loadavg().map((n) => Math.round(n * 100) / 100) },
  }
  console.log(JSON.stringify(result, null, 2))
  if (root === here) writeFileSync(path.join(here, 'bench/results/hq-upload-memory.json'), `${JSON.stringify(result, null, 2)}\n`)
} finally {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
  await broker.stop()
  await pg.destroy()
  rmSync(dir, { recursive: true, force: true })
  log('done')
}
