// The release signing key (issue 46; docs/operations.md, "Upgrade"):
//
//   node scripts/release-key.ts keygen DIR [NAME]          DIR/NAME.key (private, 0600) and DIR/NAME.pub (default NAME release-signing)
//   node scripts/release-key.ts sign ARCHIVE VERSION KEY   ARCHIVE.sig, the detached Ed25519 signature (scripts/make-release.sh calls it)
//
// Keep the .key offline (the machine that builds releases, or a stick); give every gateway
// the .pub (deploy/install.sh --release-key FILE).
import { createHash, generateKeyPairSync } from 'node:crypto'
import { createReadStream, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { signRelease } from '../lib/release/signature.ts'

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

function keygen(dir: string, name = 'release-signing'): string {
  const privateFile = path.join(dir, `${name}.key`)
  const publicFile = path.join(dir, `${name}.pub`)
  for (const file of [privateFile, publicFile]) if (existsSync(file)) throw new Error(`${file} exists: not overwritten`)
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  writeFileSync(privateFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' })
  writeFileSync(publicFile, publicKey.export({ type: 'spki', format: 'pem' }), { mode: 0o644, flag: 'wx' })
  return `private key ${privateFile} (keep it offline), public key ${publicFile} (install.sh --release-key ${publicFile})`
}

async function signArchive(archive: string, version: string, keyFile: string): Promise<string> {
  const signature = signRelease(readFileSync(keyFile, 'utf8'), path.basename(archive), version, await sha256Of(archive))
  writeFileSync(`${archive}.sig.partial`, `${JSON.stringify(signature, null, 2)}\n`)
  renameSync(`${archive}.sig.partial`, `${archive}.sig`)
  return `${archive}.sig (key id ${signature.keyId})`
}

const [command, ...args] = process.argv.slice(2)
try {
  if (command === 'keygen' && (args.length === 1 || args.length === 2)) console.log(keygen(args[0]!, args[1]))
  else if (command === 'sign' && args.length === 3) console.log(await signArchive(args[0]!, args[1]!, args[2]!))
  else {
    console.error('usage: release-key.ts keygen DIR [NAME] | release-key.ts sign ARCHIVE VERSION KEYFILE')
    process.exitCode = 2
  }
} catch (error) {
  console.error(`release-key: ${(error as Error).message}`)
  process.exitCode = 1
}
