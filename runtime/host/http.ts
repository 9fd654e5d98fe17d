// The HTTP host: node:http with tight limits and timeouts in front of the fetch-style router.
// Each request becomes a NodeRequest (a Request that is built lazily) and the router's
// JsonResponses and BytesResponses are written straight to the socket; other Responses are
// copied out. None of this reads Node's Request, Response or Headers (undici). This
// replaces @whatwg-node/server's adapter, which cost about 70% of a core per request here
// (docs/decisions/0003-fast-http-host.md). Stopping finishes in-flight requests.
import type http from 'node:http'
import type https from 'node:https'
import { nodeHttp, nodeHttps } from '../../lib/kernel/node-http.ts'
import type { Socket } from 'node:net'
import type tls from 'node:tls'
import type { Duplex } from 'node:stream'
import { errorEnvelope } from '../../lib/api/envelope.ts'
import { hostRefusalBody, hostRefusals, type HostRefusalName } from '../../lib/api/host-refusals.ts'
import { DomainError } from '../../lib/kernel/errors.ts'
import type { Logger } from '../../lib/kernel/log.ts'
import { ConnectionGuard, type ConnectionLimits, type Credentialed, shareConnectionState } from './connection-limits.ts'
import { NodeRequest } from './node-request.ts'
import { tlsProtocolOptions } from './tls/cipher-suites.ts'
import { answerRaw } from './raw-answer.ts'
import { BytesResponse } from './bytes-response.ts'
import { JsonResponse, jsonResponse } from './respond.ts'
import { type GatewayRouter, maxBodyBytes, type ServerContext, versionOfPath } from './router.ts'

export const maxHeaderBytes = 16 * 1024

/** One of the host's own answers (lib/api/host-refusals.ts, documented for every operation), then close. */
function refuse(socket: Duplex, name: HostRefusalName): void {
  answerRaw(socket, hostRefusals[name].status, hostRefusals[name].reason, hostRefusalBody(name))
}

/**
 * Longer than the idle time of the clients that reuse connections (Node's undici 4 s, its
 * http.Agent, proxies such as nginx at 60 s): the client, not the gateway, closes an idle
 * connection, so a request is never sent on a connection the gateway is closing at that
 * moment (an ECONNRESET that leaves a POS unsure whether its POST applied). docs/operations.md.
 */
export const keepAliveTimeoutMs = 75_000

/**
 * Connections the kernel queues before the gateway accepts them (Node's default is 511). A
 * device re-opening every connection the gateway closes keeps that queue full; once full,
 * the kernel drops a newcomer's SYN and its client waits a second or more to try again. A
 * queue longer than such a flood lets a newcomer wait its turn instead (the kernel caps it at
 * net.core.somaxconn, 4,096 by default).
 */
export const listenBacklog = 4096

export interface HttpHost {
  server: http.Server
  /** The HTTPS server beside it (options.tls): same answers, same limits; undefined without TLS. */
  secureServer: https.Server | undefined
  /** HTTP connections open now (upgraded ones excluded). */
  readonly connections: number
  listen(port: number, host: string): Promise<number>
  /** Listens with the secure server (options.tls) once it has a certificate (setCertificate). */
  listenSecure(port: number, host: string): Promise<number>
  /** The secure server's certificate from now on: new connections get it, open ones keep theirs. */
  setCertificate(pair: { cert: string; key: string }): void
  /** Stops accepting, lets in-flight requests finish (up to graceMs), then closes sockets. */
  close(graceMs?: number): Promise<void>
}

export interface HttpHostOptions {
  /** The whole header block must arrive within this (slowloris). */
  headersTimeoutMs?: number
  /** The whole request, body included, must arrive within this. */
  requestTimeoutMs?: number
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs?: number
  /** How often node checks the two timeouts above. */
  timeoutCheckIntervalMs?: number
  /**
   * Answer through this node request listener instead of the fast path (the
   * @whatwg-node/server adapter of runtime/host/fetch-adapter.ts, for comparison and benchmarks).
   */
  listener?: http.RequestListener
  /** Connection caps and per-connection backpressure (runtime/host/connection-limits.ts). */
  limits?: Partial<ConnectionLimits>
  /** Whether a request's token verifies: it then takes no share of its address (connection-limits.ts). */
  credentialed?: Credentialed
  /** Also serve HTTPS (runtime/host/tls/): a second server feeding the same answers and connection guard. */
  tls?: boolean
}

/** A TLS client must finish its handshake within this, like a slow header block (slowloris). */
export const tlsHandshakeTimeoutMs = 10_000

/** Copies any other fetch Response (a function's own) out to node. */
async function writeOtherResponse(res: http.ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {}
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value
  })
  const cookies = response.headers.getSetCookie?.() ?? []
  if (cookies.length) headers['set-cookie'] = cookies
  if (response.body === null) {
    res.writeHead(response.status, headers)
    res.end()
    return
  }
  const body = Buffer.from(await response.arrayBuffer())
  headers['content-length'] ??= String(body.byteLength)
  res.writeHead(response.status, headers)
  res.end(body)
}

function writeBytesResponse(res: http.ServerResponse, response: BytesResponse): void {
  res.writeHead(response.status, response.wireHeaders)
  res.end(response.wireBody ?? undefined)
}

function writeJsonResponse(res: http.ServerResponse, response: JsonResponse): void {
  const json = response.wireJson
  // The header object is the response's own (built for it in respond.ts): no copy needed.
  const out = response.wireHeaders
  const bytes = json.bytes
  out['content-length'] = json.contentLength ?? String(bytes ? bytes.length : Buffer.byteLength(json.text))
  res.writeHead(response.status, out)
  res.end(bytes ?? json.text)
}

/**
 * JSON answers are written together at the end of the event-loop turn that produced them
 * (setImmediate), not one by one as each is ready. Measured under load
 * (docs/decisions/0008-answers-at-the-end-of-the-turn.md):
 * about a fifth less CPU per request, as the sockets' writes, and the wake-ups of the clients
 * they cause, are no longer interleaved with reading and routing the next requests. The
 * wait is the rest of the current turn, and at most maxBatch answers: after a burst, the
 * first answers do not wait for every request of it to be routed.
 */
const maxBatch = 16

/** Answers waiting for the end of the turn, in arrays of maxBatch places kept from batch to batch. */
class Pending {
  readonly responses: (http.ServerResponse | undefined)[] = new Array(maxBatch).fill(undefined)
  readonly answers: (JsonResponse | undefined)[] = new Array(maxBatch).fill(undefined)
  count = 0
}

class AnswerBatch {
  // Nothing is allocated per answer: emptying an array (length = 0) gave its storage back,
  // and the next push allocated it again (issue 30).
  #pending = new Pending()
  #spare: Pending | undefined = new Pending()
  #scheduled = false
  readonly #flush = () => {
    this.#scheduled = false
    const batch = this.#pending
    if (batch.count === 0) return
    // Answers queued meanwhile go to the next batch (the spare, or a new one if it is in use).
    this.#pending = this.#spare ?? new Pending()
    this.#spare = undefined
    const { responses, answers } = batch
    try {
      for (let index = 0; index < batch.count; index++) {
        const res = responses[index]!
        const answer = answers[index]!
        responses[index] = undefined
        answers[index] = undefined
        if (!res.headersSent && !res.destroyed) writeJsonResponse(res, answer)
      }
    } finally {
      responses.fill(undefined)
      answers.fill(undefined)
      batch.count = 0
      this.#spare = batch
    }
  }

  write(res: http.ServerResponse, response: JsonResponse): void {
    const batch = this.#pending
    batch.responses[batch.count] = res
    batch.answers[batch.count] = response
    batch.count++
    if (batch.count >= maxBatch) this.#flush()
    else if (!this.#scheduled) {
      this.#scheduled = true
      setImmediate(this.#flush)
    }
  }
}

export function createHttpHost(router: GatewayRouter, log: Logger, options: HttpHostOptions = {}): HttpHost {
  let closing = false
  const answers = new AnswerBatch()

  const answer = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const request = new NodeRequest(req, res)
    let response: Response
    try {
      const context: ServerContext = { req }
      response = await router.fetch(request as unknown as Request, context)
    } catch (error) {
      // The router maps every error itself; this is the net under it.
      log.error({ err: error, method: req.method, path: request.pathname.slice(0, 256) }, 'router failed')
      response = jsonResponse(errorEnvelope(versionOfPath(request.pathname), new DomainError('INTERNAL')))
    }
    if (res.headersSent || res.destroyed) return
    // A large or unsized upload we did not read is not drained: the connection closes after
    // the answer. While stopping, no connection is kept for another request.
    if (closing || (!req.complete && !(Number(req.headers['content-length']) <= maxBodyBytes))) {
      res.setHeader('connection', 'close')
    }
    if (JsonResponse.is(response)) answers.write(res, response)
    else if (BytesResponse.is(response)) writeBytesResponse(res, response)
    else await writeOtherResponse(res, response)
  }

  const fastPath: http.RequestListener = (req, res) => {
    answer(req, res).catch((error: unknown) => {
      log.error({ err: error, method: req.method }, 'response not written')
      res.destroy()
    })
  }
  const connections = new ConnectionGuard(options.listener ?? fastPath, options.limits, options.credentialed)

  const serverOptions = {
    maxHeaderSize: maxHeaderBytes,
    // A slow or silent client cannot hold a socket forever.
    headersTimeout: options.headersTimeoutMs ?? 10_000,
    requestTimeout: options.requestTimeoutMs ?? 15_000,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? keepAliveTimeoutMs,
    connectionsCheckingInterval: options.timeoutCheckIntervalMs ?? 1_000,
  }
  // Pipelined requests of one connection wait while its earlier answers are unwritten.
  const onRequest: http.RequestListener = (req, res) => connections.schedule(req, res)
  const server = nodeHttp.createServer(serverOptions, onRequest)
  server.on('connection', (socket: Socket) => {
    if (connections.admit(socket)) return
    log.debug({ ip: socket.remoteAddress }, 'connection refused: too many')
    refuse(socket, 'TooManyConnections')
  })
  // An upgraded socket belongs to the WebSocket hub, which has caps of its own.
  server.on('upgrade', (_request: http.IncomingMessage, socket: Duplex) => {
    connections.release(socket)
    // No hub listening (a host without WebSocket): nobody else will ever close it.
    if (server.listenerCount('upgrade') === 1) socket.destroy()
  })
  const onClientError = (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'HPE_HEADER_OVERFLOW') {
      refuse(socket, 'HeadersTooLarge')
    } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      refuse(socket, 'RequestTimeout')
    } else if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy()
    } else {
      refuse(socket, 'MalformedRequest')
    }
    log.debug({ code: error.code }, 'client error')
  }
  server.on('clientError', onClientError)
  const secureServer = options.tls ? createSecureServer({ serverOptions, onRequest, onClientError, connections, log }) : undefined
  const listenOn = (target: http.Server | https.Server, port: number, host: string) =>
    new Promise<number>((resolve, reject) => {
      target.once('error', reject)
      target.listen({ port, host, backlog: listenBacklog }, () => {
        target.off('error', reject)
        const address = target.address()
        resolve(typeof address === 'object' && address ? address.port : port)
      })
    })
  const closeOne = (target: http.Server | https.Server, graceMs: number) =>
    new Promise<void>((resolve) => {
      if (!target.listening) return resolve()
      const force = setTimeout(() => target.closeAllConnections(), graceMs)
      force.unref()
      target.close(() => {
        clearTimeout(force)
        resolve()
      })
      target.closeIdleConnections()
    })

  return {
    server,
    get connections() {
      return connections.open
    },
    secureServer,
    listen: (port, host) => listenOn(server, port, host),
    listenSecure: (port, host) => {
      if (!secureServer) throw new Error('this host was created without tls')
      return listenOn(secureServer, port, host)
    },
    setCertificate: (pair) => {
      if (!secureServer) throw new Error('this host was created without tls')
      // A new context starts from these options only: the suites go with every certificate.
      secureServer.setSecureContext({ ...tlsProtocolOptions, ...pair })
    },
    close: async (graceMs = 5_000) => {
      closing = true
      await Promise.all([closeOne(server, graceMs), ...(secureServer ? [closeOne(secureServer, graceMs)] : [])])
    },
  }
}

interface SecureServerParts {
  serverOptions: http.ServerOptions
  onRequest: http.RequestListener
  onClientError: (error: NodeJS.ErrnoException, socket: Duplex) => void
  connections: ConnectionGuard
  log: Logger
}

/**
 * The HTTPS server: its TCP connections are counted by the same guard as the plain ones
 * (admitted before the handshake, so handshakes in progress count too), its requests go
 * to the same answers. Its certificate comes later, through setSecureContext.
 */
function createSecureServer({ serverOptions, onRequest, onClientError, connections, log }: SecureServerParts): https.Server {
  const secureServer = nodeHttps.createServer({ ...serverOptions, ...tlsProtocolOptions, handshakeTimeout: tlsHandshakeTimeoutMs }, onRequest)
  secureServer.on('connection', (socket: Socket) => {
    if (connections.admit(socket)) return
    log.debug({ ip: socket.remoteAddress }, 'TLS connection refused: too many')
    // Nothing readable can be said before the handshake.
    socket.destroy()
  })
  secureServer.on('secureConnection', (tlsSocket: tls.TLSSocket) => {
    shareConnectionState(tlsSocket, (tlsSocket as tls.TLSSocket & { _parent?: Duplex })._parent ?? tlsSocket)
  })
  secureServer.on('upgrade', (_request: http.IncomingMessage, socket: Duplex) => {
    // The guard counted the TCP socket under the TLS one (node's TLSSocket keeps it as _parent).
    connections.release((socket as Duplex & { _parent?: Duplex })._parent ?? socket)
    if (secureServer.listenerCount('upgrade') === 1) socket.destroy()
  })
  secureServer.on('clientError', onClientError)
  // A handshake that fails (a plain-HTTP request on the TLS port, an unknown cipher) only closes.
  secureServer.on('tlsClientError', (error: NodeJS.ErrnoException) => log.debug({ code: error.code }, 'TLS handshake failed'))
  return secureServer
}
