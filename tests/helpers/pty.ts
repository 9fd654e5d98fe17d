// A pseudo-terminal standing in for a Zigbee stick: python3's pty module opens the pair and
// relays the master end over its stdin/stdout, so a test reads what herdsman's real adapter
// writes to the "stick" and can answer it. The slave end is linked at a path of the test's
// choosing (the gateway's configured serialPort). close() ends the master: to the adapter
// that is a stick pulled out mid-run.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { rmSync, symlinkSync } from 'node:fs'

const relay = `
import os, select, sys
master, slave = os.openpty()
import tty
tty.setraw(slave)
print(os.ttyname(slave), flush=True)
os.close(slave)
out = sys.stdout.fileno()
inp = sys.stdin.fileno()
while True:
    ready, _, _ = select.select([master, inp], [], [])
    if master in ready:
        try:
            data = os.read(master, 4096)
        except OSError:
            data = b''
        if data:
            os.write(out, data)
    if inp in ready:
        data = os.read(inp, 4096)
        if not data:
            break
        os.write(master, data)
`

export class PseudoTerminal {
  /** The slave end's device node, e.g. /dev/pts/7. */
  readonly device: string
  /** Everything the adapter wrote to the "stick" so far. */
  received = Buffer.alloc(0)
  readonly #process: ChildProcess
  readonly #links: string[] = []

  private constructor(device: string, child: ChildProcess) {
    this.device = device
    this.#process = child
  }

  static async open(): Promise<PseudoTerminal> {
    const child = spawn('python3', ['-u', '-c', relay], { stdio: ['pipe', 'pipe', 'inherit'] })
    let first = Buffer.alloc(0)
    while (!first.includes(10)) {
      const [chunk] = (await once(child.stdout!, 'data')) as [Buffer]
      first = Buffer.concat([first, chunk])
    }
    const newline = first.indexOf(10)
    const terminal = new PseudoTerminal(first.subarray(0, newline).toString(), child)
    terminal.received = first.subarray(newline + 1)
    child.stdout!.on('data', (chunk: Buffer) => void (terminal.received = Buffer.concat([terminal.received, chunk])))
    return terminal
  }

  /** Makes the stick appear at path (a symlink to the slave end, as udev's by-id links are). */
  linkAt(path: string): void {
    symlinkSync(this.device, path)
    this.#links.push(path)
  }

  /** Bytes written to the stick, as the stick would answer them. */
  write(bytes: Buffer): void {
    this.#process.stdin!.write(bytes)
  }

  /** How often a byte sequence was written to the stick. */
  count(sequence: Buffer): number {
    let found = 0
    for (let at = this.received.indexOf(sequence); at >= 0; at = this.received.indexOf(sequence, at + 1)) found++
    return found
  }

  /** Pulls the stick: the master end closes, its links go. */
  async close(): Promise<void> {
    for (const link of this.#links.splice(0)) rmSync(link, { force: true })
    if (this.#process.exitCode !== null || this.#process.signalCode !== null) return
    const exited = once(this.#process, 'exit')
    this.#process.stdin!.end()
    this.#process.kill('SIGTERM')
    await exited
  }
}
