import t from 'tap'
import { createLogger } from '../../../lib/kernel/log.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'

t.test('LOG_LEVEL sets the verbosity when no level is given', async (t) => {
  const saved = process.env.LOG_LEVEL
  t.teardown(() => {
    if (saved === undefined) delete process.env.LOG_LEVEL
    else process.env.LOG_LEVEL = saved
  })
  process.env.LOG_LEVEL = 'warn'
  const lines: string[] = []
  const log = createLogger({ destination: { write: (line: string) => void lines.push(line) } })
  log.info('hidden')
  log.warn('shown')
  t.equal(lines.length, 1)
  t.match(JSON.parse(lines[0]), { level: 40, msg: 'shown', service: 'tracker-gateway' })
})

t.test('one JSON object a line; tokens and authorization headers are redacted', async (t) => {
  const logs = memoryLogger('info')
  logs.log.info({ token: 'a'.repeat(48), req: { authorization: 'Bearer secret' } }, 'with secrets')
  const [line] = logs.lines()
  t.equal(line.token, '[redacted]')
  t.same(line.req, { authorization: '[redacted]' })
  t.notMatch(logs.text(), /Bearer secret|aaaaaaaa/)
})
