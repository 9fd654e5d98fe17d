// Makes the box's certificate in a short-lived process. The ASN.1 modules that build it
// (@peculiar/asn1-x509 and its kin, about 80 modules) stay loaded for the life of whatever
// process imports them: about 3 MB of the gateway's memory for the rest of its first run,
// for a certificate made once in the box's life (and again only when its names change).
// Made in a child, they go when it exits; the gateway is answering on HTTP meanwhile.
import { spawn } from 'node:child_process'
import { getPriority, setPriority } from 'node:os'
import { fileURLToPath } from 'node:url'
import type { KeyAndCertificate, SelfSignedRequest } from './self-signed.ts'

const childFile = fileURLToPath(new URL('./self-signed-child.ts', import.meta.url))

/** How much nicer than the gateway the child runs (niceness caps at 19). */
export const childNiceness = 10

/**
 * A hung child is killed after this long. Generous: the child runs nicer than the gateway, so
 * on a box busy with other work it may get little CPU for minutes (seen: over 60 s under a
 * load of 150), and a limit it cannot meet would kill it and start it again for ever.
 */
export const selfSignedTimeoutMs = 10 * 60_000

export function makeSelfSignedInChild(request: SelfSignedRequest, timeoutMs = selfSignedTimeoutMs): Promise<KeyAndCertificate> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', childFile], { stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs })
    // Background work: on a first start the API is already answering, and on a Pi's few
    // cores it should not wait for the certificate (only HTTPS does).
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, Math.min(19, getPriority() + childNiceness))
      } catch {
        // Not allowed here (a sandbox): it runs at the gateway's priority.
      }
    }
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code, signal) => {
      if (code === 0) {
        try {
          return resolve(JSON.parse(stdout) as KeyAndCertificate)
        } catch {
          // falls through to the error below
        }
      }
      const why = /^\w*Error\b.*$/m.exec(stderr)?.[0] ?? (signal ? `killed by ${signal}` : `exit code ${code}`)
      reject(new Error(`making the certificate failed: ${why}`))
    })
    child.stdin.end(JSON.stringify({ ...request, now: request.now.getTime() }))
  })
}
