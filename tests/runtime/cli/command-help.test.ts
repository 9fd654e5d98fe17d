// `gateway <command> --help` prints that command's own usage (and details where it has
// them), not the whole list; `gateway --help` and an unknown command still get the list.
import t from 'tap'
import { commandHelp } from '../../../runtime/cli/command-help.ts'
import { runCli } from '../../helpers/process.ts'

const usage = `usage: gateway <command> [options]

  start [--port N]                     run the gateway
        [--demo]                       ... and play lunch services
  new endpoint <METHOD> <path>         write a function file
  radio channel [N]                    show the channel
  radio probe [--device PATH]          try a stick
        [--baud N]

Options: --data-dir DIR`

t.test('the lines of the command named, with their continuation lines and details', async (t) => {
  t.equal(
    commandHelp(usage, ['new', 'endpoint', 'GET', '/api/v2/x']),
    'usage of gateway new endpoint:\n  new endpoint <METHOD> <path>         write a function file',
  )
  t.equal(
    commandHelp(usage, ['start'], 'more'),
    'usage of gateway start:\n  start [--port N]                     run the gateway\n        [--demo]                       ... and play lunch services\n\nmore',
  )
  t.equal(
    commandHelp(usage, ['radio']),
    'usage of gateway radio:\n  radio channel [N]                    show the channel\n  radio probe [--device PATH]          try a stick\n        [--baud N]',
  )
  t.equal(commandHelp(usage, ['radio', 'probe']), 'usage of gateway radio probe:\n  radio probe [--device PATH]          try a stick\n        [--baud N]')
  t.equal(commandHelp(usage, ['radio', 'nothing']), commandHelp(usage, ['radio']), "an unknown subcommand: the command's lines")
  t.equal(commandHelp(usage, ['bogus']), undefined)
  t.equal(commandHelp(usage, ['<METHOD>']), undefined, 'placeholders are not command words')
})

t.test('gateway new endpoint --help prints its own usage, exit 0', async (t) => {
  const result = await runCli(['new', 'endpoint', '--help'])
  t.equal(result.code, 0, result.stderr)
  t.match(result.stdout, /^usage of gateway new endpoint:\n {2}new endpoint <METHOD> <path>/)
  t.match(result.stdout, 'gateway new endpoint <GET|POST|DELETE> </api/v1|v2/...> [--code N] [--auth none|bearer|button]')
  t.match(result.stdout, /--auth A {4}bearer \(the v2 default\)/)
  t.notMatch(result.stdout, /token list|sim start/, 'not the whole list')
  t.match((await runCli(['status', '-h'])).stdout, /^usage of gateway status:\n {2}status /)
  t.match((await runCli(['--help'])).stdout, /^usage: gateway <command> \[options\][\s\S]*token list/)
  const unknown = await runCli(['bogus', '--help'])
  t.equal(unknown.code, 0)
  t.match(unknown.stdout, /^usage: gateway <command> \[options\]/)
})
