// A small seeded generator (mulberry32), so a failing run can be repeated from its seed: the
// HQ nemesis and process tests (tests/runtime/hq/stack.ts) and the rollout agent's model test.
export function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = Math.imul(a ^ (a >>> 15), 1 | a)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}
