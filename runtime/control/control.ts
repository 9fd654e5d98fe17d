// The control socket: a Unix socket in the data dir (mode 0600, so only the gateway's user
// can reach it) through which `gateway button`, `gateway sim ...`, `gateway token ...` talk
// to the running gateway. One superjson message a line each way.
import { createHash } from 'node:crypto'
import { chmodSync, existsSync, unlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import net from 'node:net'
import path from 'node:path'
import superjson from 'superjson'
import type { Logger } from '../../lib/kernel/log.ts'

export const controlSocketName = 'gateway.sock'

export type ControlHandler = (args: Record<string, unknown>) => unknown | Promise<unknown>

interface ControlRequest {
  id: number
  command: string
  args?: Record<string, unknown>
}

interface ControlReply {
  id: number
  ok: boolean
  result?: unknown
  error?: string
}

/** Unix socket paths are limited to 107 bytes on Linux. */
const maxSocketPath = 100

/**
 * `<dataDir>/gateway.sock`, or for a data dir too deep for a Unix socket path, a name in the
 * temp dir derived from the data dir's absolute path, so the CLI finds it the same way.
 */
export function controlSocketPath(dataDir: string): string {
  const inDataDir = path.join(path.resolve(dataDir), controlSocketName)
  if (Buffer.byteLength(inDataDir) <= maxSocketPath) return inDataDir
  const digest = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16)
  return path.join(tmpdir(), `tracker-gateway-${digest}.sock`)
}

export class ControlServer {
  readonly #handlers = new Map<string, ControlHandler>()
  readonly #log: Logger
  #server: net.Server | undefined
  #path: string | undefined

  constructor(log: Logger) {
    this.#log = log
  }

  /** Services register their own commands, e.g. 'button.press' or 'sim.start'. */
  register(command: string, handler: ControlHandler): void {
    if (this.#handlers.has(command)) throw new Error(`control command ${command} registered twice`)
    this.#handlers.set(command, handler)
  }

  commands(): string[] {
    return [...this.#handlers.keys()].sort()
  }

  async handle(request: ControlRequest): Promise<ControlReply> {
    const handler = this.#handlers.get(request.command)
    if (!handler) return { id: request.id, ok: false, error: `unknown command ${request.command}` }
    try {
      return { id: request.id, ok: true, result: await handler(request.args ?? {}) }
    } catch (error) {
      return { id: request.id, ok: false, error: (error as Error).message }
    }
  }

  async listen(dataDir: string): Promise<string> {
    const socketPath = controlSocketPath(dataDir)
    // A socket file left by a killed gateway would make listen fail with EADDRINUSE.
    if (existsSync(socketPath)) unlinkSync(socketPath)
    const server = net.createServer((socket) => this.#serve(socket))
    const oldMask = process.umask(0o177)
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(socketPath, () => resolve())
      })
    } finally {
      process.umask(oldMask)
    }
    chmodSync(socketPath, 0o600)
    this.#server = server
    this.#path = socketPath
    return socketPath
  }

  #serve(socket: net.Socket): void {
    let buffered = ''
    socket.setEncoding('utf8')
    socket.on('error', () => socket.destroy())
    socket.on('data', (chunk: string) => {
      buffered += chunk
      if (buffered.length > 1_000_000) return socket.destroy()
      let newline: number
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline)
        buffered = buffered.slice(newline + 1)
        let request: ControlRequest
        try {
          request = superjson.parse<ControlRequest>(line)
        } catch {
          socket.write(`${superjson.stringify({ id: -1, ok: false, error: 'malformed message' })}\n`)
          continue
        }
        this.#log.info({ command: request.command }, 'control command')
        void this.handle(request).then((reply) => socket.write(`${superjson.stringify(reply)}\n`))
      }
    })
  }

  async close(): Promise<void> {
    const server = this.#server
    if (!server) return
    await new Promise<void>((resolve) => server.close(() => resolve()))
    if (this.#path && existsSync(this.#path)) unlinkSync(this.#path)
    this.#server = undefined
  }
}

/** No gateway answers on the control socket (none runs on that data dir, or it is not ours). */
export class GatewayUnreachableError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'GatewayUnreachableError'
  }
}

/** Sends one command to the gateway running on dataDir and returns its result. */
export async function sendControl(dataDir: string, command: string, args: Record<string, unknown> = {}, timeoutMs = 10_000): Promise<unknown> {
  const socketPath = controlSocketPath(dataDir)
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath)
    let buffered = ''
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no answer from the gateway on ${socketPath}`))
    }, timeoutMs)
    socket.setEncoding('utf8')
    socket.on('connect', () => socket.write(`${superjson.stringify({ id: 1, command, args })}\n`))
    socket.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      const hint = error.code === 'ENOENT' || error.code === 'ECONNREFUSED' ? ` (is the gateway running with data dir ${dataDir}?)` : ''
      reject(new GatewayUnreachableError(`cannot reach the gateway: ${error.code ?? error.message}${hint}`))
    })
    // A gateway that dies while working on the command (a long backup) closes the socket.
    socket.on('close', () => {
      clearTimeout(timer)
      reject(new Error('the gateway closed the connection before answering (did it stop?)'))
    })
    socket.on('data', (chunk: string) => {
      buffered += chunk
      const newline = buffered.indexOf('\n')
      if (newline < 0) return
      clearTimeout(timer)
      socket.end()
      const reply = superjson.parse<ControlReply>(buffered.slice(0, newline))
      if (reply.ok) resolve(reply.result)
      else reject(new Error(reply.error))
    })
  })
}
