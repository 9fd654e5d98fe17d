import t from 'tap'
import { readSystemSync, runCommand, type CommandResult, type RunCommand } from '../../../lib/gateway/time-sync.ts'

/** A system that answers each command as given (missing: not installed). */
function system(answers: Record<string, CommandResult>): { run: RunCommand; asked: string[] } {
  const asked: string[] = []
  return {
    asked,
    run: async (file, args) => {
      asked.push([file, ...args].join(' '))
      return answers[file] ?? { code: null, stdout: '' }
    },
  }
}

const chronyTracking = (leap: string) => `Reference ID    : 7F7F0101 ()\nStratum         : 10\nLeap status     : ${leap}\n`

t.test('systemd answers from the kernel flag: yes or no', async (t) => {
  const yes = system({ timedatectl: { code: 0, stdout: 'yes\n' } })
  t.same(await readSystemSync(yes.run), { state: 'synchronized', source: 'timedatectl' })
  t.same(yes.asked, ['timedatectl show -p NTPSynchronized --value'])
  t.same(await readSystemSync(system({ timedatectl: { code: 0, stdout: 'no\n' } }).run), { state: 'unsynchronized', source: 'timedatectl' })
})

t.test('without systemd (or its bus), chrony says', async (t) => {
  const failing = { code: 1, stdout: '' }
  const normal = system({ timedatectl: failing, chronyc: { code: 0, stdout: chronyTracking('Normal') } })
  t.same(await readSystemSync(normal.run), { state: 'synchronized', source: 'chronyc' })
  t.same(normal.asked, ['timedatectl show -p NTPSynchronized --value', 'chronyc -n tracking'])
  t.same(await readSystemSync(system({ chronyc: { code: 0, stdout: chronyTracking('Not synchronised') } }).run), { state: 'unsynchronized', source: 'chronyc' })
})

t.test('nothing to ask, or nothing sensible answered: unknown', async (t) => {
  t.same(await readSystemSync(system({}).run), { state: 'unknown', source: 'none' })
  t.same(await readSystemSync(system({ timedatectl: { code: 0, stdout: '' }, chronyc: { code: 1, stdout: '506 Cannot talk to daemon' } }).run), {
    state: 'unknown',
    source: 'none',
  })
  t.same(await readSystemSync(system({ chronyc: { code: 0, stdout: 'no leap line' } }).run), { state: 'unknown', source: 'none' })
})

t.test('runCommand: output and exit code, null for a program that is not there', async (t) => {
  t.same(await runCommand('sh', ['-c', 'echo "$LC_ALL"; exit 0']), { code: 0, stdout: 'C\n' })
  t.same(await runCommand('sh', ['-c', 'exit 3']), { code: 3, stdout: '' })
  t.same(await runCommand('/nonexistent/timedatectl', []), { code: null, stdout: '' })
  // This machine, whatever it has: an answer, never a failure.
  t.match(await readSystemSync(), { state: /^(synchronized|unsynchronized|unknown)$/ })
})
