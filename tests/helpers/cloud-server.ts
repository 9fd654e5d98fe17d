// A stand-in cloud activation service on 127.0.0.1 (port 0) for the activation tests.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface CloudServer {
  url: string
  requests: { method: string; body: Record<string, unknown> | null }[]
  close(): Promise<void>
}

/** Accepts `goodCode`, refuses any other code with 403. */
export async function startCloudServer(goodCode = '123-4567-890'): Promise<CloudServer> {
  const requests: CloudServer['requests'] = []
  const server: Server = createServer((request, response) => {
    let text = ''
    request.on('data', (chunk) => (text += chunk))
    request.on('end', () => {
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : null
      requests.push({ method: request.method ?? '', body })
      response.setHeader('content-type', 'application/json')
      if (request.method === 'HEAD') return response.end()
      if (body?.deviceCode === goodCode) {
        response.end(JSON.stringify({ accountName: 'Pizza Co', locationName: 'Main Street' }))
      } else {
        response.statusCode = 403
        response.end(JSON.stringify({ message: 'unknown device code' }))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/activate`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
