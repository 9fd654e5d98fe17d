// Verifies a backup in a worker thread, so the running gateway keeps answering while SQLite's
// integrity_check reads a history of hundreds of MB (DatabaseSync blocks its thread).
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'
import type { VerifyOptions } from '../../lib/backup/verify.ts'
import type { BackupManifest } from '../../lib/backup/manifest.ts'

interface Job {
  file: string
  options: VerifyOptions
}

type Answer = { ok: true; manifest: BackupManifest } | { ok: false; name: string; message: string }

export function verifyInWorker(file: string, options: VerifyOptions = {}): Promise<BackupManifest> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { file, options } satisfies Job })
    worker.once('message', (answer: Answer) => {
      // Ended at once: the answer is all it was for, and it holds nothing open afterwards.
      void worker.terminate()
      if (answer.ok) return resolve(answer.manifest)
      const error = new Error(answer.message)
      error.name = answer.name
      reject(error)
    })
    worker.once('error', reject)
    worker.once('exit', (code) => reject(new Error(`the verification worker stopped (exit code ${code})`)))
  })
}

if (!isMainThread && parentPort) {
  const { file, options } = workerData as Job
  // Only the worker reads archives: the gateway's own thread does not load the reader.
  const { verifyBackup } = await import('../../lib/backup/verify.ts')
  const answer: Answer = await verifyBackup(file, options).then(
    (manifest) => ({ ok: true as const, manifest }),
    (error: Error) => ({ ok: false as const, name: error.name, message: error.message }),
  )
  parentPort.postMessage(answer)
}
