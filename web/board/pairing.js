// Signing a screen in with a code (POST /api/v2/board/pairing and friends): the new screen
// asks for a code, shows it and polls; a signed-in screen approves it under "This screen";
// the new screen then collects its own token. No button, no SSH. Asking for a new code names
// the request it replaces, so pressing "Show a code" again holds one place at the gateway
// instead of one per press (a few presses used to lock every screen behind the address out).
import { t } from './i18n.js'

const pollMs = 2000

/**
 * The new screen's side. `onToken` gets the token once approved; `replaces`: the `id` of this
 * screen's earlier request (a flow's `id`), dropped by the gateway.
 * @param {{ name: string, replaces?: string | null, onToken: (token: string) => void, show: (code: string | null, status: string) => void }} deps
 * @returns {{ stop(): void, done: Promise<void>, readonly id: string | null }}
 */
export function waitForApproval({ name, replaces = null, onToken, show, fetchImpl = (...args) => fetch(...args), setTimer = (fn, ms) => setTimeout(fn, ms) }) {
  let stopped = false
  let timer = null
  let id = null
  const done = (async () => {
    const request = replaces ? { name, replaces } : { name }
    const response = await fetchImpl('/api/v2/board/pairing', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(request),
    })
    const body = await response.json().catch(() => ({}))
    // A refusal says when to retry (the gateway's message names the time).
    if (!response.ok) return show(null, body.message ?? t('pairingRefused', { status: String(response.status) }))
    id = body.pairing.id
    const { code } = body.pairing
    show(code, t('pairingWaiting'))
    await new Promise((resolve) => {
      const poll = async () => {
        if (stopped) return resolve()
        try {
          const answer = await fetchImpl(`/api/v2/board/pairing/${id}`, { headers: { accept: 'application/json' } })
          const result = await answer.json().catch(() => ({}))
          if (answer.status === 404) {
            show(null, t('pairingExpired'))
            return resolve()
          }
          if (result.pairing?.state === 'approved' && result.token?.token) {
            show(code, t('pairingApproved'))
            onToken(result.token.token)
            return resolve()
          }
        } catch {
          // The gateway is out of reach for a moment: keep asking.
        }
        timer = setTimer(poll, pollMs)
      }
      timer = setTimer(poll, pollMs)
    })
  })()
  return {
    done,
    get id() {
      return id
    },
    stop() {
      stopped = true
      clearTimeout(timer)
    },
  }
}
