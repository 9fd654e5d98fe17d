// The gateway process's own memory for GET /api/v2/gateway (extension `memory`, bytes): what
// an operator of a 1 GB box watches. heapLimit is V8's ceiling (--max-old-space-size, set by
// `npm start` and the systemd unit, docs/operations.md "Limits").
import { getHeapStatistics } from 'node:v8'

export interface ProcessMemory {
  /** Resident set size: the process's share of the box's RAM. */
  rss: number
  heapUsed: number
  heapTotal: number
  /** V8's heap ceiling; over it the process aborts. */
  heapLimit: number
  /** Buffers and other memory outside the V8 heap. */
  external: number
}

export function processMemory(): ProcessMemory {
  const usage = process.memoryUsage()
  return {
    rss: usage.rss,
    heapUsed: usage.heapUsed,
    heapTotal: usage.heapTotal,
    heapLimit: getHeapStatistics().heap_size_limit,
    external: usage.external,
  }
}
