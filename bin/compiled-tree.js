// Which code a starting gateway runs: the compiled tree in build/ (plain JavaScript, so the
// process never loads Node's TypeScript stripper, about 18 MB) when it matches the sources,
// after building it in a short-lived child process when it does not. Plain JavaScript
// itself, since it runs in the gateway process before anything is compiled. The build is
// runtime/build/build.ts; docs/architecture.md, "The compiled tree".
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'

/** The folders compiled into build/ (every .ts file under them). */
export const sourceFolders = ['lib', 'runtime', 'functions']
/** The file in build/ recording the sources it was built from. */
export const stampName = '.sources.json'

/**
 * Every source file (relative paths, sorted) and a fingerprint of their names, sizes and
 * modification times: any edit, added or removed file (a dropped-in function) changes it,
 * also one that sets an older time (an archive unpacked over a checkout). Runs at every start:
 * paths are joined as strings, not by path.join or a recursive readdir, whose normalizing is
 * hot enough over ~1,000 entries for V8 to optimize it and so touch ~5 MB of its optimizing
 * compiler's code at every start (docs/decisions/0004-one-bundle-built-on-the-box.md).
 */
export function sourceFingerprint(root) {
  const files = []
  const walk = (folder) => {
    for (const entry of readdirSync(`${root}/${folder}`, { withFileTypes: true })) {
      const file = `${folder}/${entry.name}`
      if (entry.isDirectory()) walk(file)
      else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(file)
    }
  }
  for (const folder of sourceFolders) walk(folder)
  files.sort()
  const hash = createHash('sha256')
  for (const file of files) {
    const { size, mtimeMs } = statSync(`${root}/${file}`)
    hash.update(`${file}\0${size}\0${mtimeMs}\n`)
  }
  return { files, fingerprint: hash.digest('base64url') }
}

/** Whether root/build was built from the sources as they are now. */
export function isFresh(root) {
  let stamp
  try {
    stamp = JSON.parse(readFileSync(path.join(root, 'build', stampName), 'utf8'))
  } catch {
    return false
  }
  return stamp.fingerprint === sourceFingerprint(root).fingerprint
}

// dev follows functions/ and new writes into it: both work on the checkout's sources, as
// headquarters (another service, `gateway hq`) does; every other command runs compiled.
const sourceCommands = new Set(['dev', 'new', 'hq'])
const optionsWithValue = new Set(['--port', '--data-dir', '--config'])

/** Whether a `gateway` command line (its first positional argument) runs from the sources. */
export function runsFromSources(args) {
  return sourceCommands.has(commandOf(args))
}

/** A `gateway` command line's command (its first positional argument), or undefined. */
export function commandOf(args) {
  for (let i = 0; i < args.length; i++) {
    if (optionsWithValue.has(args[i])) i++
    else if (!args[i].startsWith('-')) return args[i]
  }
  return undefined
}

/**
 * The module of `gateway` commands to run: the compiled tree's bundle, build/bundle/cli.js
 * (build/runtime/cli.js when the build could make none), built first when stale (in a
 * child process with Node's stripper; its output and errors go to this process's stderr).
 * When building is not possible (a read-only checkout, a source that does not compile), the
 * sources themselves, with a warning: slower to start and heavier, but the same gateway.
 */
export function compiledCli(root, { execPath = process.execPath, warn = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const sources = path.join(root, 'runtime/cli.ts')
  if (process.env.GATEWAY_RUN_SOURCES === '1') return sources
  if (!isFresh(root)) {
    const build = spawnSync(execPath, ['--disable-warning=ExperimentalWarning', path.join(root, 'runtime/build/build.ts'), '--quiet'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    if (build.status !== 0) {
      warn(
        `gateway: the compiled tree in ${path.join(root, 'build')} could not be built (${build.error?.message ?? `exit ${build.status ?? build.signal}`}): running the TypeScript sources`,
      )
      return sources
    }
  }
  // Where runtime/build/bundle.ts writes it (bundleFolder, bundleEntry); this file is plain
  // JavaScript and cannot import that one. tests/runtime/build/build.test.ts holds them equal.
  const bundled = path.join(root, 'build/bundle/cli.js')
  return existsSync(bundled) ? bundled : path.join(root, 'build/runtime/cli.js')
}
