// A full disk under one directory, in this process: every write to a file below it fails
// with ENOSPC (opening, reading, renaming and fsyncing still work, as on a real full disk).
// Works anywhere (no tmpfs, no root): node's fs functions are wrapped, and
// syncBuiltinESMExports() passes the wrappers to modules that imported them by name.
import fs from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import path from 'node:path'

type AnyFn = (...args: any[]) => any

function enospc(target: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOSPC: no space left on device, write '${target}'`), { code: 'ENOSPC', errno: -28, syscall: 'write', path: target })
}

export interface FullDisk {
  /** Writes below the directory fail from now on (again). */
  fill(): void
  /** Space is back: writes work again. */
  free(): void
  /** Removes every wrapper. */
  restore(): void
  /** Writes refused so far. */
  readonly refused: number
}

export function fullDisk(dir: string): FullDisk {
  const root = path.resolve(dir) + path.sep
  let full = true
  let refused = 0
  const fdPaths = new Map<number, string>()
  const inside = (target: unknown) => typeof target === 'string' && path.resolve(target).startsWith(root)
  const fdInside = (fd: unknown) => typeof fd === 'number' && fdPaths.has(fd)
  const originals: [object, string, AnyFn][] = []
  const wrap = (owner: any, name: string, make: (original: AnyFn) => AnyFn) => {
    originals.push([owner, name, owner[name]])
    owner[name] = make(owner[name])
  }
  const refuse = (target: string) => {
    refused++
    return enospc(target)
  }

  // Remember which descriptors point below the directory.
  wrap(fs, 'openSync', (original) => (file: string, ...rest: unknown[]) => {
    const fd = original(file, ...rest)
    if (inside(file)) fdPaths.set(fd, file)
    return fd
  })
  wrap(fs, 'open', (original) => (file: string, ...rest: unknown[]) => {
    const callback = rest.pop() as AnyFn
    return original(file, ...rest, (error: unknown, fd: number) => {
      if (!error && inside(file)) fdPaths.set(fd, file)
      callback(error, fd)
    })
  })
  wrap(fs, 'closeSync', (original) => (fd: number) => {
    fdPaths.delete(fd)
    return original(fd)
  })
  wrap(fs, 'close', (original) => (fd: number, ...rest: unknown[]) => {
    fdPaths.delete(fd)
    return original(fd, ...rest)
  })
  // Writes through descriptors (NeDB's appends, write streams).
  wrap(fs, 'writeSync', (original) => (fd: number, ...rest: unknown[]) => {
    if (full && fdInside(fd)) throw refuse(fdPaths.get(fd)!)
    return original(fd, ...rest)
  })
  for (const name of ['write', 'writev']) {
    wrap(fs, name, (original) => (fd: number, ...rest: unknown[]) => {
      if (full && fdInside(fd)) {
        const callback = rest.pop() as AnyFn
        const error = refuse(fdPaths.get(fd)!)
        process.nextTick(() => callback(error))
        return
      }
      return original(fd, ...rest)
    })
  }
  // Whole-file writes by name.
  for (const name of ['writeFileSync', 'appendFileSync']) {
    wrap(fs, name, (original) => (file: unknown, ...rest: unknown[]) => {
      if (full && inside(file)) throw refuse(file as string)
      return original(file, ...rest)
    })
  }
  for (const name of ['writeFile', 'appendFile']) {
    wrap(fs.promises, name, (original) => async (file: unknown, ...rest: unknown[]) => {
      if (full && inside(file)) throw refuse(file as string)
      return original(file, ...rest)
    })
  }
  // FileHandle writes (fs.promises.open(...).write / writeFile).
  wrap(fs.promises, 'open', (original) => async (file: unknown, ...rest: unknown[]) => {
    const handle = await original(file, ...rest)
    if (inside(file)) {
      for (const name of ['write', 'writeFile', 'appendFile', 'writev']) {
        const method = handle[name].bind(handle)
        handle[name] = async (...args: unknown[]) => {
          if (full) throw refuse(file as string)
          return method(...args)
        }
      }
    }
    return handle
  })
  syncBuiltinESMExports()

  return {
    fill: () => void (full = true),
    free: () => void (full = false),
    restore: () => {
      for (const [owner, name, original] of originals.reverse()) (owner as Record<string, AnyFn>)[name] = original
      originals.length = 0
      syncBuiltinESMExports()
    },
    get refused() {
      return refused
    },
  }
}
