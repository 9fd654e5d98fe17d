// Runs the paced client (bench/paced-client.ts) in a worker thread: an isolate of its own,
// with a small fresh heap that nothing else allocates in. In the bench's main isolate, after
// autocannon's runs, V8 fell into a full GC after nearly every scavenge during paced runs
// (every ~130 ms, 2-10 ms each), and the client's pauses count as the server's latency.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import { pacedLoad, type PacedOptions, type PacedResult } from './paced-client.ts'

type FromWorker = { measuring: true } | { result: PacedResult }

/** pacedLoad in a worker thread; onMeasuring is called (a message later) when the recorded part begins. */
export function pacedLoadInWorker(options: PacedOptions): Promise<PacedResult> {
  const { onMeasuring, ...data } = options
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { pacedOptions: data } })
    worker.on('message', (message: FromWorker) => {
      if ('measuring' in message) onMeasuring?.()
      else resolve(message.result)
    })
    worker.once('error', reject)
    worker.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`paced client worker exited with ${code}`))))
  })
}

const pacedOptions = isMainThread ? undefined : (workerData as { pacedOptions?: PacedOptions } | null)?.pacedOptions
if (pacedOptions) {
  const port = parentPort!
  const result = await pacedLoad({ ...pacedOptions, onMeasuring: () => port.postMessage({ measuring: true }) })
  port.postMessage({ result }, [result.latencies.buffer as ArrayBuffer])
}
