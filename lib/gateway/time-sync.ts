// Whether the system clock is synchronised, as the system itself reports it. On Raspberry Pi
// OS (systemd-timesyncd) and any systemd host, `timedatectl show -p NTPSynchronized` answers
// from the kernel's own flag (adjtimex: STA_UNSYNC cleared by whichever NTP client steers
// the clock, timesyncd or chrony). Without systemd (or without its bus, in a container),
// chrony's `chronyc tracking` says whether it is synchronised. Otherwise the answer is
// 'unknown': the gateway then behaves as if the clock were right (it cannot tell).
import { execFile } from 'node:child_process'
import type { SyncReading } from '../kernel/clock-watch.ts'

export interface CommandResult {
  /** Exit code; null when the command could not be run (missing) or was killed. */
  code: number | null
  stdout: string
}

export type RunCommand = (file: string, args: string[]) => Promise<CommandResult>

/** Runs a command for at most 3 s with the C locale; never throws. */
export const runCommand: RunCommand = (file, args) =>
  new Promise((resolve) => {
    execFile(file, args, { timeout: 3000, env: { ...process.env, LC_ALL: 'C' } }, (error, stdout) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0
      resolve({ code, stdout: String(stdout) })
    })
  })

export async function readSystemSync(run: RunCommand = runCommand): Promise<SyncReading> {
  const timedatectl = await run('timedatectl', ['show', '-p', 'NTPSynchronized', '--value'])
  const answer = timedatectl.code === 0 ? timedatectl.stdout.trim() : ''
  if (answer === 'yes') return { state: 'synchronized', source: 'timedatectl' }
  if (answer === 'no') return { state: 'unsynchronized', source: 'timedatectl' }
  const chronyc = await run('chronyc', ['-n', 'tracking'])
  const leap = chronyc.code === 0 ? /^Leap status\s*:\s*(.+)$/m.exec(chronyc.stdout)?.[1]?.trim() : undefined
  if (leap === 'Not synchronised') return { state: 'unsynchronized', source: 'chronyc' }
  if (leap) return { state: 'synchronized', source: 'chronyc' }
  return { state: 'unknown', source: 'none' }
}
