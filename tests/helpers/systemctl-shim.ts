// The `systemctl` of the service stand-in (service-stand-in.ts): passes its arguments to the
// stand-in's socket and prints what it answers, with its exit code.
import net from 'node:net'

const socket = net.connect(process.env.SERVICE_STAND_IN_SOCKET!)
let text = ''
socket.on('data', (chunk) => (text += chunk))
socket.on('end', () => {
  const { code, out, err } = JSON.parse(text) as { code: number; out?: string; err?: string }
  process.stdout.write(out ?? '')
  process.stderr.write(err ?? '')
  process.exitCode = code
})
socket.on('error', (error) => {
  console.error(`systemctl stand-in: ${error.message}`)
  process.exitCode = 1
})
socket.write(`${JSON.stringify(process.argv.slice(2))}\n`)
