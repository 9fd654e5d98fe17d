// The test's side of the fake coordinator inside radio processes (zigbee-fake-child.ts):
// a unix socket each radio process connects to. It tells each new process whether its start
// fails and which devices the coordinator knows, and collects what the process sends.
import { mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import type { ChildReport, RemoteCommand, ReportedFrame } from './zigbee-fake-child.ts'
import type { FakeDevice, SentFrame } from './zigbee-fake-adapter.ts'

/** One radio process as the fake coordinator sees it. */
export class FakeChild {
  pid = 0
  /** Whether the process has WebAssembly (none under --lite-mode). */
  webAssembly: boolean | undefined
  created = false
  channel: number | undefined
  serialPort: Record<string, unknown> | undefined
  readonly sent: SentFrame[] = []
  readonly permitJoins: number[] = []
  readonly frames: ReportedFrame[] = []
  /** Channel-change broadcasts this process's coordinator sent: the new channels. */
  readonly channelBroadcasts: number[] = []
  readonly #socket: net.Socket
  readonly #remote: FakeRemote

  constructor(socket: net.Socket, remote: FakeRemote) {
    this.#socket = socket
    this.#remote = remote
  }

  command(command: RemoteCommand): void {
    this.#socket.write(`${JSON.stringify(command)}\n`)
  }

  join(device: FakeDevice): void {
    this.#remote.devices.set(device.nwk, device)
    this.command({ type: 'join', device })
  }

  unplug(): void {
    this.command({ type: 'unplug' })
  }

  /** Resolves once the fake coordinator in the radio process has it. */
  set(field: 'coordinatorEndpoints' | 'hangCoordinator' | 'failSends' | 'hangSends' | 'hangStop', value: unknown): Promise<void> {
    const applied = new Promise<void>((resolve) => this.appliedWaiters.push(resolve))
    this.command({ type: 'set', field, value })
    return applied
  }

  readonly appliedWaiters: (() => void)[] = []
}

export class FakeRemote {
  /** How many of the next radio processes fail their start. */
  failStarts = 0
  readonly children: FakeChild[] = []
  /** Devices that joined: every later radio process's coordinator knows them. */
  readonly devices = new Map<number, FakeDevice>()
  readonly socketPath: string
  #formed = false

  private constructor(socketPath: string) {
    this.socketPath = socketPath
  }

  /** Listens on a fresh socket (a short path: unix socket paths are limited to ~100 bytes). */
  static async open(t: Test): Promise<FakeRemote> {
    const { remote, close } = await FakeRemote.listen()
    t.teardown(close)
    return remote
  }

  /** open() outside a test (the memory benchmark): close() ends the socket and its directory. */
  static async listen(): Promise<{ remote: FakeRemote; close: () => Promise<void> }> {
    const directory = mkdtempSync(path.join(os.tmpdir(), 'zfake-'))
    const socketPath = path.join(directory, 'control.sock')
    let remote: FakeRemote | undefined
    const server = net.createServer((socket) => remote!.#accept(socket))
    remote = new FakeRemote(socketPath)
    await new Promise<void>((resolve) => server.listen(socketPath, resolve))
    const close = async () => {
      await new Promise((resolve) => server.close(resolve))
      rmSync(directory, { recursive: true, force: true })
    }
    return { remote, close }
  }

  /** What a ZigbeeProcessRadio needs to load the fake into its radio processes. */
  get processOptions(): { execArgv: string[]; env: NodeJS.ProcessEnv } {
    const preload = fileURLToPath(new URL('./zigbee-fake-child.ts', import.meta.url))
    return { execArgv: ['--import', preload], env: { ...process.env, ZIGBEE_FAKE_CONTROL: this.socketPath } }
  }

  get current(): FakeChild | undefined {
    return this.children.at(-1)
  }

  /** Radio processes whose adapter was created (their start got past the serial port). */
  get created(): FakeChild[] {
    return this.children.filter((child) => child.created)
  }

  #accept(socket: net.Socket): void {
    const child = new FakeChild(socket, this)
    this.children.push(child)
    const failStart = this.failStarts > 0
    if (failStart) this.failStarts--
    child.command({ type: 'config', config: { failStart, startResult: this.#formed ? 'resumed' : 'reset', devices: [...this.devices.values()] } })
    if (!failStart) this.#formed = true
    let buffer = ''
    socket.on('data', (chunk) => {
      buffer += chunk.toString()
      let end: number
      while ((end = buffer.indexOf('\n')) >= 0) {
        const message = JSON.parse(buffer.slice(0, end)) as ChildReport
        buffer = buffer.slice(end + 1)
        if (message.type === 'hello') Object.assign(child, { pid: message.pid, webAssembly: message.webAssembly })
        else if (message.type === 'created') Object.assign(child, { created: true, channel: message.channel, serialPort: message.serialPort })
        else if (message.type === 'sent') child.sent.push(message.frame)
        else if (message.type === 'frame') child.frames.push(message.frame)
        else if (message.type === 'channelBroadcast') child.channelBroadcasts.push(message.channel)
        else if (message.type === 'applied') child.appliedWaiters.shift()?.()
        else child.permitJoins.push(message.seconds)
      }
    })
    socket.on('error', () => {})
  }
}
