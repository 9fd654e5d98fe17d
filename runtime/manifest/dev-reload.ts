// `gateway dev`: the route table follows functions/ while the gateway runs. A file added,
// changed or removed is loaded, checked with the manifest rules and, when all is well,
// swapped in as a whole (SwappableRouter): a request sees the old table or the new one,
// never half of each. A file that does not load or breaks a rule is reported with its path,
// and the previous table keeps serving. Services (store, radio, sockets, tokens) are not
// touched. The committed functions/_manifest.gen.ts is rewritten to match, so it stays the
// production table.
//
// Node caches ES modules by URL and never unloads one, so new content is imported under a
// new URL (`?v=<hash of the content>`). Every distinct content a file ever had stays in
// memory until the process exits: a few KB per edit, fine for a development session, and
// the reason this is `gateway dev` only. Unchanged files (same hash) reuse their module.
// Only function files reload; a change under lib/ needs a restart.
import { createHash } from 'node:crypto'
import { type FSWatcher, readFileSync, watch, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Logger } from '../../lib/kernel/log.ts'
import type { ManifestEntry } from '../host/function-types.ts'
import { assertManifest, loadCandidates, type ModuleUrl, ManifestError, renderManifest, sortCandidates } from './manifest-gen.ts'
import type { GatewayRouter, ServerContext } from '../host/router.ts'

/** A router whose table can be replaced between requests. */
export class SwappableRouter implements GatewayRouter {
  #current: GatewayRouter

  constructor(initial: GatewayRouter) {
    this.#current = initial
  }

  swap(next: GatewayRouter): void {
    this.#current = next
  }

  fetch(request: Request, serverContext?: ServerContext): Promise<Response> {
    return this.#current.fetch(request, serverContext)
  }
}

/** Content-addressed import URLs: a file is imported again only when its bytes changed. */
export function contentUrl(): ModuleUrl {
  return (dir, file) => {
    const full = path.join(dir, file)
    const hash = createHash('sha256').update(readFileSync(full)).digest('hex').slice(0, 16)
    return `${pathToFileURL(full).href}?v=${hash}`
  }
}

/** Loads every function file of dir into manifest entries (a ManifestError names a bad file). */
export async function loadFunctionTable(dir: string, url: ModuleUrl = contentUrl()): Promise<ManifestEntry[]> {
  const candidates = await loadCandidates(dir, url)
  assertManifest(candidates)
  return sortCandidates(candidates).map((c) => ({ file: c.file, ...c.config!, handler: c.handler as ManifestEntry['handler'] }))
}

export interface FunctionWatcherOptions {
  dir: string
  log: Logger
  /** Called with each new, checked table (build the router and swap it in). */
  apply(entries: ManifestEntry[]): void
  /** Wait after the last file event before reloading (an editor saves in several writes). */
  settleMs?: number
}

export interface FunctionWatcher {
  /** Resolves when the reload under way (if any) and any it made necessary are done. */
  settled(): Promise<void>
  close(): void
}

/** Watches dir/v1 and dir/v2 (fs.watch) and reloads the table after changes settle. */
export function watchFunctions(options: FunctionWatcherOptions): FunctionWatcher {
  const { dir, log } = options
  const settleMs = options.settleMs ?? 50
  const url = contentUrl()
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> = Promise.resolve()
  let again = false
  let busy = false
  let lastManifest = ''

  const reload = async () => {
    try {
      const entries = await loadFunctionTable(dir, url)
      options.apply(entries)
      const text = renderManifest(entries.map((e) => ({ file: e.file, config: e, hasHandler: true })))
      if (text !== lastManifest) {
        lastManifest = text
        writeManifest(dir, text, log)
      }
      log.info({ routes: entries.length }, 'functions reloaded: the new route table is serving')
    } catch (error) {
      const message = error instanceof ManifestError ? error.message : String((error as Error).message ?? error)
      log.error({ problems: message.split('\n') }, `${message.split('\n')[0]} (the previous route table keeps serving)`)
    }
  }

  const run = () => {
    if (busy) {
      again = true
      return
    }
    busy = true
    running = (async () => {
      do {
        again = false
        await reload()
      } while (again)
      busy = false
    })()
  }

  const onEvent = (_event: string, name: string | Buffer | null) => {
    const file = name === null ? '' : String(name)
    if (file !== '' && (!file.endsWith('.ts') || file.startsWith('_'))) return
    clearTimeout(timer)
    timer = setTimeout(run, settleMs)
  }
  const watchers: FSWatcher[] = ['v1', 'v2'].map((version) => watch(path.join(dir, version), onEvent))
  for (const watcher of watchers) watcher.on('error', (error) => log.error({ err: error }, 'watching functions/ failed'))

  return {
    settled: async () => {
      do await running
      while (busy)
    },
    close: () => {
      clearTimeout(timer)
      for (const watcher of watchers) watcher.close()
    },
  }
}

function writeManifest(dir: string, text: string, log: Logger): void {
  const file = path.join(dir, '_manifest.gen.ts')
  let current = ''
  try {
    current = readFileSync(file, 'utf8')
  } catch {}
  if (current === text) return
  try {
    writeFileSync(file, text)
    log.info('functions/_manifest.gen.ts rewritten to match functions/ (commit it with the function)')
  } catch (error) {
    log.warn({ err: error }, 'functions/_manifest.gen.ts could not be written: run npm run gen before committing')
  }
}
