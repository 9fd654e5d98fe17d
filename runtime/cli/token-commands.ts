// `gateway token list`, `gateway token create <name> [--scope S]`, `gateway token revoke
// <name>`, `gateway token rename <name or prefix> <new name>` and `gateway token scope <name
// or prefix> <scope>` (narrowing only): the host-side view of access tokens, through the
// control socket (so only the gateway's user can use them: an admin). Lists carry the prefix
// only; `create` prints the new token once, as the generate answer does.
import { DomainError } from '../../lib/kernel/errors.ts'
import { tokenName } from '../../lib/tokens/names.ts'
import { scopeOf, scopes } from '../../lib/tokens/scopes.ts'
import { presentToken } from '../../lib/api/present-token.ts'
import type { CliCommand } from './cli-command.ts'
import { sendControl, type ControlServer } from '../control/control.ts'
import type { Services } from '../wiring/services.ts'

export interface TokenListRow {
  name: string
  prefix: string
  scope: string
  creation_date: string
  last_used: string | null
  ip_address: string | null
}

export function registerTokenCommands(control: ControlServer, services: Services): void {
  control.register('token.list', () => services.tokens.list().map((record) => presentToken(record, services.settings.timezone) as unknown as TokenListRow))
  control.register('token.revoke', async (args) => {
    const name = typeof args.name === 'string' ? args.name : ''
    return inWords({ missing: name, invalid: name }, async () => ({ revoked: await services.tokens.revokeByName(tokenName(name)) }))
  })
  control.register('token.create', async (args) => {
    const name = typeof args.name === 'string' ? args.name : ''
    const scope = typeof args.scope === 'string' ? args.scope : undefined
    return inWords({ missing: name, invalid: name, scope }, async () => {
      const issued = await services.tokens.issue(tokenName(name), scopeOf(scope))
      return { token: issued.token, row: presentToken(issued.record, services.settings.timezone) as unknown as TokenListRow }
    })
  })
  control.register('token.scope', async (args) => {
    const name = typeof args.name === 'string' ? args.name : ''
    const scope = typeof args.scope === 'string' ? args.scope : ''
    return inWords({ missing: name, invalid: name, scope }, async () => ({ narrowed: (await services.tokens.narrow(name, scopeOf(scope))).length }))
  })
  control.register('token.rename', async (args) => {
    const name = typeof args.name === 'string' ? args.name : ''
    const to = typeof args.to === 'string' ? args.to : ''
    return inWords({ missing: name, invalid: to }, async () => ({ renamed: (await services.tokens.rename(name, tokenName(to))).length }))
  })
}

/** The CLI prints error messages; give it words, not an error kind. */
async function inWords<T>(names: { missing: string; invalid: string; scope?: string }, run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'SCOPE_INVALID') throw new Error(`"${names.scope}" is not a scope (${scopes.join(', ')})`)
    if (error instanceof DomainError && error.kind === 'SCOPE_DENIED')
      throw new Error(`${error.detail}: a token's scope can be narrowed, never widened (create a new token instead)`)
    if (error instanceof DomainError && error.kind === 'TOKEN_LIMIT_REACHED') throw new Error(`${error.detail}`)
    if (error instanceof DomainError && error.kind === 'TOKEN_NOT_FOUND') throw new Error(`no access token named "${names.missing}"`)
    if (error instanceof DomainError && error.kind === 'TOKEN_NAME_INVALID')
      throw new Error(`"${names.invalid}" is not a token name (1-64 letters, digits, - or _)`)
    throw error
  }
}

export const tokenCliOptions = { scope: { type: 'string' } } as const

const tokenUsage = [
  'usage: gateway token list',
  '       gateway token create <name> [--scope read|screen|pos|admin]',
  '       gateway token revoke <name>',
  '       gateway token rename <name or prefix> <new name>',
  '       gateway token scope <name or prefix> <read|screen|pos|admin>',
].join('\n')

export const tokenCliCommand: CliCommand = async (positionals, flags, dataDir) => {
  const [sub, name, ...extra] = positionals
  if (sub === 'list' && name === undefined) return formatTokenList((await sendControl(dataDir, 'token.list')) as TokenListRow[])
  if (sub === 'create' && name !== undefined && extra.length === 0) {
    const scope = typeof flags.scope === 'string' ? flags.scope : undefined
    const { token, row } = (await sendControl(dataDir, 'token.create', { name, ...(scope === undefined ? {} : { scope }) })) as {
      token: string
      row: TokenListRow
    }
    return `${token}\ncreated access token "${row.name}" (scope ${row.scope}); the token above is shown only now`
  }
  if (sub === 'scope' && name !== undefined && extra.length === 1) {
    const { narrowed } = (await sendControl(dataDir, 'token.scope', { name, scope: extra[0] })) as { narrowed: number }
    return `narrowed ${narrowed} access token${narrowed === 1 ? '' : 's'} to ${extra[0]}`
  }
  if (sub === 'revoke' && name !== undefined && extra.length === 0) {
    const { revoked } = (await sendControl(dataDir, 'token.revoke', { name })) as { revoked: number }
    return `revoked ${revoked} access token${revoked === 1 ? '' : 's'} named "${name}"`
  }
  if (sub === 'rename' && name !== undefined && extra.length === 1) {
    const { renamed } = (await sendControl(dataDir, 'token.rename', { name, to: extra[0] })) as { renamed: number }
    return `renamed ${renamed} access token${renamed === 1 ? '' : 's'} to "${extra[0]}"`
  }
  throw new Error(tokenUsage)
}

export function formatTokenList(rows: TokenListRow[]): string {
  if (!rows.length) return 'no access tokens'
  const table = [
    ['NAME', 'PREFIX', 'SCOPE', 'CREATED', 'LAST USED', 'FROM'],
    ...rows.map((row) => [row.name, `${row.prefix}…`, row.scope, row.creation_date, row.last_used ?? 'never', row.ip_address ?? '-']),
  ]
  const widths = table[0].map((_, column) => Math.max(...table.map((line) => line[column].length)))
  return table
    .map((line) =>
      line
        .map((cell, column) => cell.padEnd(widths[column]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}
