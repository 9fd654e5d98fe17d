// The process that makes the box's own certificate (self-signed-process.ts starts it): reads
// one SelfSignedRequest as JSON on stdin (`now` in ms), writes the key and certificate as
// JSON on stdout. The key travels through pipes, never the command line.
import { makeSelfSigned } from './self-signed.ts'

let input = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk: string) => (input += chunk))
process.stdin.on('end', () => {
  const request = JSON.parse(input) as { names: string[]; addresses: string[]; keyPem?: string; now: number }
  process.stdout.write(JSON.stringify(makeSelfSigned({ ...request, now: new Date(request.now) })))
})
