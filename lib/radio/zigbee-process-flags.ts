// Node flags for the radio process, after the gateway's own (which it inherits; the last of a
// V8 flag wins). The radio process allocates little once herdsman is loaded, so the young
// generation the gateway sizes for HTTP bursts (--max-semi-space-size=8) only keeps what
// loading herdsman left behind: capped at 1 MB it holds about 8 MB less resident, idle and
// on a stick that never answers (docs/performance.md, Memory). Others were measured and left
// out: --lite-mode and --jitless turn WebAssembly off, which Node's type stripping needs;
// --optimize-for-size saved 3 MB idle but cost 2 MB at the peak of an ember start;
// --single-threaded saved half a MB for no concurrent GC.
export const radioProcessNodeFlags: readonly string[] = ['--max-semi-space-size=1']
