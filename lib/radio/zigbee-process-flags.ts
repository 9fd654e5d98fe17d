// Node flags for the radio process, after the gateway's own (which it inherits; the last of a
// V8 flag wins). The radio process allocates little once herdsman is loaded, so the young
// generation the gateway sizes for HTTP bursts (--max-semi-space-size=8) only keeps what
// loading herdsman left behind: capped at 1 MB it holds about 8 MB less resident, idle and
// on a stick that never answers (docs/performance.md, Memory). Flags that change how V8
// compiles code (--lite-mode, --jitless, --optimize-for-size, --single-threaded, --expose-gc)
// are left out on purpose: they change the compile cache's key, so the radio process would
// compile (and strip the types of) every module again instead of reading the gateway's cache.
export const radioProcessNodeFlags: readonly string[] = ['--max-semi-space-size=1']
