// How much work processes have done: their CPU time so far (user + system, in clock ticks,
// from /proc/<pid>/stat), for waits that follow progress (untilProgress). On a busy machine a
// process starting up (Node, a build, herdsman loaded interpreted) can take minutes of wall
// time while it keeps getting CPU; processes that get none for a long while are stuck.
import { readdirSync, readFileSync } from 'node:fs'

interface ProcStat {
  pid: number
  ppid: number
  ticks: number
}

function procStat(pid: string): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) is in parentheses and may hold spaces: count after it, so
    // field n of the line is fields[n - 3] (ppid 4, utime 14, stime 15).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { pid: Number(pid), ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) }
  } catch {
    return undefined // gone meanwhile
  }
}

/** The CPU ticks of `root`'s live descendants, summed, and of `root` itself unless told not to. */
export function treeCpuTicks(root: number, withRoot = true): number {
  const all = readdirSync('/proc').flatMap((pid) => (/^\d+$/.test(pid) ? [procStat(pid)].filter((s) => s !== undefined) : []))
  const children = new Map<number, ProcStat[]>()
  for (const stat of all) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat])
  let ticks = withRoot ? (all.find((stat) => stat.pid === root)?.ticks ?? 0) : 0
  const pending = [...(children.get(root) ?? [])]
  for (let stat = pending.pop(); stat; stat = pending.pop()) {
    ticks += stat.ticks
    pending.push(...(children.get(stat.pid) ?? []))
  }
  return ticks
}

/** The CPU ticks of this process's live children and theirs (the processes a test started). */
export function childrenCpuTicks(): number {
  return treeCpuTicks(process.pid, false)
}
