// One keep-alive HTTP/1.1 connection sending GETs one at a time, on a raw socket: for
// latency measured one request at a time, node's http client (agent, parser, streams) added
// more time per request than the gateway's answer took, and its garbage added pauses.
import net from 'node:net'
import { contentLength, headerEnd } from './paced-client.ts'

export class KeepAliveClient {
  readonly #socket: net.Socket
  readonly #port: number
  #pending: { resolve: (answer: { status: number; body: string }) => void; reject: (error: Error) => void } | undefined
  #received: Buffer[] = []
  #size = 0
  #bodyStart = -1
  #length = 0
  #status = 0

  private constructor(socket: net.Socket, port: number) {
    this.#socket = socket
    this.#port = port
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => this.#data(chunk))
    socket.on('error', (error) => this.#fail(error))
    socket.on('close', () => this.#fail(new Error('connection closed')))
  }

  static connect(port: number): Promise<KeepAliveClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1')
      socket.once('connect', () => resolve(new KeepAliveClient(socket, port)))
      socket.once('error', reject)
    })
  }

  get(path: string): Promise<{ status: number; body: string }> {
    if (this.#pending) return Promise.reject(new Error('one request at a time'))
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject }
      this.#received = []
      this.#size = 0
      this.#bodyStart = -1
      this.#socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${this.#port}\r\n\r\n`)
    })
  }

  close(): void {
    this.#socket.destroy()
  }

  #data(chunk: Buffer): void {
    this.#received.push(chunk)
    this.#size += chunk.length
    if (this.#bodyStart < 0) {
      const all = Buffer.concat(this.#received)
      this.#received = [all]
      const end = all.indexOf(headerEnd)
      if (end < 0) return
      const head = all.subarray(0, end).toString('latin1')
      this.#status = Number(head.slice(9, 12))
      this.#length = contentLength(head)
      this.#bodyStart = end + headerEnd.length
    }
    if (this.#size - this.#bodyStart < this.#length) return
    const body = Buffer.concat(this.#received)
      .subarray(this.#bodyStart, this.#bodyStart + this.#length)
      .toString('utf8')
    const pending = this.#pending
    this.#pending = undefined
    pending?.resolve({ status: this.#status, body })
  }

  #fail(error: Error): void {
    const pending = this.#pending
    this.#pending = undefined
    pending?.reject(error)
  }
}
