// Node flags for the radio process, after the gateway's own (which it inherits; the last of a
// V8 flag wins). The radio process allocates little once herdsman is loaded, so the young
// generation the gateway sizes for HTTP bursts (--max-semi-space-size=8) only keeps what
// loading herdsman left behind: capped at 1 MB it holds about 8 MB less resident, idle and
// on a stick that never answers (docs/decisions/0010-radio-process-flags.md). --optimize-for-size saved
// 3 MB idle but cost 2 MB at the peak of an ember start; --single-threaded saved half a MB
// for no concurrent GC: both left out.
//
// --lite-mode (V8 without its optimizing compilers, bytecode flushed sooner) takes about
// 12-15 MB more off a process that loads herdsman, and the radio process handles a few
// messages a second, which the interpreter does as well. But lite mode turns WebAssembly off,
// and Node's TypeScript stripper runs on WebAssembly: a .ts module cannot load. So the radio
// process gets it only when everything it will load is JavaScript: its entry is compiled (the
// compiled tree forks build/lib/radio/zigbee-child.js) and no flag it inherits or is given
// (--import, --require, a loader, also through NODE_OPTIONS) names a TypeScript file. From the
// sources (npm run dev, the tests, hq) it runs without. Nothing herdsman loads in the radio
// process needs WebAssembly; Node's fetch (undici's HTTP parser is WebAssembly) would fail
// there, and nothing in it makes an HTTP request.

/** The young generation's cap, in every radio process. */
export const radioProcessYoungGeneration = '--max-semi-space-size=1'
export const liteMode = '--lite-mode'

const typeScriptFile = /\.[cm]?ts$/

/** Whether a file, path or URL is one Node's type stripping would have to load. */
function namesTypeScript(arg: string): boolean {
  const value = arg.startsWith('-') && arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : arg
  return typeScriptFile.test(value.replace(/^["']|["']$/g, ''))
}

/**
 * The radio process's own flags. entry: the module it runs; execArgv: every flag it will run
 * with besides these (the gateway's, then the caller's); nodeOptions: NODE_OPTIONS in its
 * environment, which it also obeys.
 */
export function radioProcessNodeFlags(entry: string, execArgv: readonly string[], nodeOptions = ''): string[] {
  const interpreted = entry.endsWith('.js') && ![...execArgv, ...nodeOptions.split(/\s+/)].some(namesTypeScript)
  return interpreted ? [radioProcessYoungGeneration, liteMode] : [radioProcessYoungGeneration]
}
