// A notice under the header while the gateway's clock cannot be trusted: the system says it
// is not synchronised (a box without internet after a power cut), or the clock started
// behind the times the gateway had already written. A signed-in board's device usually
// knows the time, so the notice offers to set the gateway's clock from it
// (POST /api/v2/gateway/clock); the gateway refuses once the system clock is synchronised.
// Also while active orders carry times an earlier run took on a clock never known right:
// nothing can tell how far off their waiting times are (docs/api.md, "Clock").

import { plural, t } from './i18n.js'

/**
 * What the notice says for a gatewayStatus.clock (pure).
 * @returns {{ hidden: boolean, text: string, canSet: boolean }}
 */
export function clockNotice(clock) {
  if (!clock) return { hidden: true, text: '', canSet: false }
  const unsure = clock.ordersOnUnsureClock > 0 ? ` ${plural('clockUnsure', clock.ordersOnUnsureClock)}` : ''
  const behind = clock.behind ? ` ${t('clockBehind')}` : ''
  if (clock.synchronized !== false) {
    const text = `${behind}${unsure}`.trim()
    return text ? { hidden: false, text, canSet: Boolean(behind) } : { hidden: true, text: '', canSet: false }
  }
  if (clock.setFromBoardAt !== null && clock.setFromBoardAt !== undefined) {
    return { hidden: false, text: `${t('clockSetFromBoard')}${unsure}`, canSet: true }
  }
  const held = clock.holdingDeliveries ? ` ${t('clockHeld')}` : ''
  return { hidden: false, text: `${t('clockNotSynchronised')}${behind}${held}${unsure}`, canSet: true }
}

/**
 * Puts the notice after `anchor` (hidden until needed); `update(gatewayStatus)` refreshes it.
 * `call(method, path, body)` is the board's API client; `now()` the device's time.
 */
export function mountClockNotice(anchor, call, now = () => Date.now()) {
  const box = document.createElement('div')
  box.id = 'clock-notice'
  box.setAttribute('role', 'status')
  box.hidden = true
  box.style.cssText = 'display:flex;flex-wrap:wrap;gap:0.4rem 1rem;align-items:center;padding:0.5rem 1rem;background:#6b4e00;color:#fff'
  const text = document.createElement('span')
  const button = document.createElement('button')
  button.type = 'button'
  button.className = 'secondary'
  box.append(text, button)
  anchor.after(box)

  let last = null
  const show = (clock) => {
    last = clock
    const notice = clockNotice(clock)
    box.hidden = notice.hidden
    text.textContent = notice.text
    button.textContent = t('clockSetButton')
    button.hidden = !notice.canSet
  }
  button.addEventListener('click', async () => {
    button.disabled = true
    try {
      const answer = await call('POST', '/api/v2/gateway/clock', { time: now() })
      show({ ...last, ...answer.clock })
    } catch (error) {
      text.textContent = t('clockNotTaken', { message: error.message })
    } finally {
      button.disabled = false
    }
  })
  return { update: (gatewayStatus) => show(gatewayStatus?.clock), element: box }
}
