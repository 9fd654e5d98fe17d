// node:http and node:https for ES modules, without undici. An `import … from 'node:http'`
// gives the module a namespace with every export, which reads node:http's lazy `WebSocket`,
// `CloseEvent` and `MessageEvent` getters and so loads undici (about 12 MB resident, and
// Node compiling it at every start) in a process that never uses it. Asking Node for the
// builtin itself reads only what is used. Types still come from `import type`.
import type http from 'node:http'
import type https from 'node:https'

export const nodeHttp = process.getBuiltinModule('node:http') as typeof http
export const nodeHttps = process.getBuiltinModule('node:https') as typeof https
