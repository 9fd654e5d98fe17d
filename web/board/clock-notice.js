// A notice under the header while the gateway's clock cannot be trusted: the system says it
// is not synchronised (a box without internet after a power cut), or the clock started
// behind the times the gateway had already written. A signed-in board's device usually
// knows the time, so the notice offers to set the gateway's clock from it
// (POST /api/v2/gateway/clock); the gateway refuses once the system clock is synchronised.
// Also while active orders carry times an earlier run took on a clock never known right:
// nothing can tell how far off their waiting times are (docs/api.md, "Clock").

/**
 * What the notice says for a gatewayStatus.clock (pure).
 * @returns {{ hidden: boolean, text: string, canSet: boolean }}
 */
export function clockNotice(clock) {
  if (!clock) return { hidden: true, text: '', canSet: false }
  const unsure = clock.ordersOnUnsureClock > 0
    ? ` ${clock.ordersOnUnsureClock === 1 ? '1 order was' : `${clock.ordersOnUnsureClock} orders were`} started on a clock never known to be right: ${clock.ordersOnUnsureClock === 1 ? 'its waiting time' : 'their waiting times'} may be off.`
    : ''
  const behind = clock.behind
    ? " The gateway's clock started behind the times it had already written (a power cut?); it counts on from the latest of them until the time is known."
    : ''
  if (clock.synchronized !== false) {
    const text = `${behind}${unsure}`.trim()
    return text ? { hidden: false, text, canSet: Boolean(behind) } : { hidden: true, text: '', canSet: false }
  }
  if (clock.setFromBoardAt !== null && clock.setFromBoardAt !== undefined) {
    return { hidden: false, text: `The gateway's clock was set from a board; it has no time source of its own.${unsure}`, canSet: true }
  }
  const held = clock.holdingDeliveries ? ' Webhook deliveries wait for the time.' : ''
  return { hidden: false, text: `The gateway's clock is not synchronised: times may be off.${behind}${held}${unsure}`, canSet: true }
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
  button.textContent = "Set the gateway's clock from this device"
  box.append(text, button)
  anchor.after(box)

  let last = null
  const show = (clock) => {
    last = clock
    const notice = clockNotice(clock)
    box.hidden = notice.hidden
    text.textContent = notice.text
    button.hidden = !notice.canSet
  }
  button.addEventListener('click', async () => {
    button.disabled = true
    try {
      const answer = await call('POST', '/api/v2/gateway/clock', { time: now() })
      show({ ...last, ...answer.clock })
    } catch (error) {
      text.textContent = `The gateway did not take the time: ${error.message}`
    } finally {
      button.disabled = false
    }
  })
  return { update: (gatewayStatus) => show(gatewayStatus?.clock), element: box }
}
