// The HTTP host: node:http with tight limits and timeouts, @whatwg-node/server adapting
// node's request/response to the fetch-style router. Stopping finishes in-flight requests.
import http from 'node:http'
import type { Duplex } from 'node:stream'
import { createServerAdapter } from '@whatwg-node/server'
import type { Logger } from '../lib/log.ts'
import type { GatewayRouter, ServerContext } from './router.ts'

export const maxHeaderBytes = 16 * 1024

export interface HttpHost {
  server: http.Server
  listen(port: number, host: string): Promise<number>
  /** Stops accepting, lets in-flight requests finish (up to graceMs), then closes sockets. */
  close(graceMs?: number): Promise<void>
}

function answerRaw(socket: Duplex, status: number, reason: string, body: Record<string, unknown>): void {
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const text = JSON.stringify(body)
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  )
}

export function createHttpHost(router: GatewayRouter, log: Logger): HttpHost {
  const adapter = createServerAdapter<ServerContext>((request, serverContext) => router.fetch(request, serverContext))
  const server = http.createServer(
    {
      maxHeaderSize: maxHeaderBytes,
      // A slow or silent client cannot hold a socket forever.
      headersTimeout: 10_000,
      requestTimeout: 15_000,
      keepAliveTimeout: 5_000,
      connectionsCheckingInterval: 1_000,
    },
    adapter,
  )
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'HPE_HEADER_OVERFLOW') {
      answerRaw(socket, 431, 'Request Header Fields Too Large', { status: 431, message: 'Request headers are larger than 16 KiB' })
    } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      answerRaw(socket, 408, 'Request Timeout', { status: 408, message: 'Request timed out' })
    } else if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy()
    } else {
      answerRaw(socket, 400, 'Bad Request', { status: 400, message: 'Malformed HTTP request' })
    }
    log.debug({ code: error.code }, 'client error')
  })

  return {
    server,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject)
        server.listen(port, host, () => {
          server.off('error', reject)
          const address = server.address()
          resolve(typeof address === 'object' && address ? address.port : port)
        })
      }),
    close: (graceMs = 5_000) =>
      new Promise((resolve) => {
        if (!server.listening) return resolve()
        const force = setTimeout(() => server.closeAllConnections(), graceMs)
        force.unref()
        server.close(() => {
          clearTimeout(force)
          resolve()
        })
        server.closeIdleConnections()
      }),
  }
}
