// autocannon ships no type declarations; the bench uses this much of its programmatic API.
declare module 'autocannon' {
  interface Histogram {
    average: number
    p50: number
    p90: number
    p99: number
    max: number
    total: number
  }
  export interface Result {
    requests: Histogram & { sent: number }
    latency: Histogram
    throughput: Histogram
    errors: number
    timeouts: number
    non2xx: number
    '2xx': number
    duration: number
  }
  export interface Options {
    url: string
    connections?: number
    duration?: number
    method?: string
    headers?: Record<string, string>
    body?: string
    overallRate?: number
    requests?: {
      method?: string
      path?: string
      headers?: Record<string, string>
      setupRequest?: (request: Record<string, unknown>) => Record<string, unknown>
    }[]
  }
  const autocannon: (options: Options) => Promise<Result>
  export default autocannon
}
