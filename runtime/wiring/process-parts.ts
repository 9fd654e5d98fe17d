// The parts of a gateway that concern the process on its host rather than the API: the data
// dir's lock, the entry in the registry of running gateways, and the first log lines that
// tell a person where the board is.
import { hostname, networkInterfaces } from 'node:os'
import { ConfigError } from '../../lib/config.ts'
import type { Logger } from '../../lib/kernel/log.ts'
import type { DataDirLock } from './data-dir-lock.ts'
import { registerGateway } from './gateway-registry.ts'
import type { Part } from './lifecycle.ts'

/** Held from before the store opens until after it closes: first to start, last to stop. */
export function dataDirLockPart(lock: DataDirLock): Part {
  return { name: 'data-dir-lock', start: async () => {}, stop: async () => lock.release() }
}

/** Once listening: the port goes to the lock's owner file and the registry (for `gateway status`). */
export function announcePart(options: { lock: DataDirLock; port: () => number; log: Logger; host: string; registryDir?: string }): Part {
  let unregister = () => {}
  return {
    name: 'announce',
    start: async () => {
      const port = options.port()
      options.lock.setPort(port, options.host)
      unregister = registerGateway({ pid: process.pid, port, dataDir: options.lock.dataDir, startedAt: Date.now() }, options.registryDir)
      for (const url of boardUrls(options.host, port)) options.log.info({ url }, `board: ${url}`)
    },
    stop: async () => unregister(),
  }
}

/** Where a browser reaches the board: every address the gateway listens on, loopback last. */
export function boardUrls(host: string, port: number, interfaces = networkInterfaces(), name = hostname()): string[] {
  const url = (address: string) => `http://${address.includes(':') ? `[${address}]` : address}:${port}/`
  if (host !== '0.0.0.0' && host !== '::') return [url(host)]
  const addresses = Object.values(interfaces)
    .flat()
    .filter((entry) => entry !== undefined && !entry.internal && (entry.family === 'IPv4' || host === '::'))
    .map((entry) => entry!.address)
    .filter((address) => !address.startsWith('fe80:'))
  return [...addresses.map(url), url(`${name}.local`), url('localhost')]
}

/** A port taken or not allowed is a configuration problem (exit 2), said in one line. */
export function listenError(error: unknown, port: number, host: string): unknown {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'EADDRINUSE') return new ConfigError(`port ${port} on ${host} is in use: another gateway on ${port}? \`gateway status\``)
  if (code === 'EACCES') return new ConfigError(`port ${port} on ${host}: this user may not listen there (ports below 1024 need privileges)`)
  return error
}
