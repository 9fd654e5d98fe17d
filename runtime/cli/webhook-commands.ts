// `gateway webhooks list`: the registrations with their signing secrets, on the host only
// (through the control socket, which only the gateway's user can reach).
import type { CliCommand } from './cli-command.ts'
import { sendControl, type ControlServer } from '../control/control.ts'
import type { Services } from '../wiring/services.ts'

export function registerWebhookCommands(control: ControlServer, services: Services): void {
  control.register('webhooks.list', () => services.webhooks.listWithSecrets())
}

interface ListedWebhook {
  url: string
  version: string
  state: string
  backlog: number
  dropped: number
  lastSuccess: number | null
  lastError: { at: number; message: string } | null
  secret: string
}

export function formatWebhookList(list: ListedWebhook[]): string {
  if (!list.length) return 'no webhooks registered'
  return list
    .map((w) =>
      [
        `${w.url}  (${w.version}, ${w.state}, backlog ${w.backlog}${w.dropped ? `, ${w.dropped} dropped` : ''})`,
        `  secret:       ${w.secret}`,
        `  last success: ${w.lastSuccess ? new Date(w.lastSuccess).toISOString() : 'never'}`,
        `  last error:   ${w.lastError ? `${new Date(w.lastError.at).toISOString()} ${w.lastError.message}` : 'none'}`,
      ].join('\n'),
    )
    .join('\n')
}

export const webhooksCliCommand: CliCommand = async (positionals, _flags, dataDir) => {
  if (positionals[0] !== 'list') throw new Error('usage: gateway webhooks list')
  return formatWebhookList((await sendControl(dataDir, 'webhooks.list')) as ListedWebhook[])
}
