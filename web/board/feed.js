// The live feed: /api/v2/websocket, token in the first frame, then a snapshot and one frame
// per change, and this screen's settings whenever they change. While it is down the board polls the gateway every second with a cheap request
// (a static asset: no token, no work) and reconnects on the first answer, so a screen is back
// within a second or two of the gateway, not after a back-off grown to many seconds. Only
// when the gateway answers but the socket still fails does the retry slow down (1 s doubling
// to 10 s), so a struggling gateway is not hammered. Also reconnects at once when the browser
// comes back online or the page becomes visible again.
const pollMs = 1000
const maxSocketDelayMs = 10_000

/** Whether the gateway answers HTTP now. */
async function reachable() {
  try {
    const response = await fetch('/assets/favicon.svg', { method: 'HEAD', cache: 'no-store' })
    return response.ok
  } catch {
    return false
  }
}

export function connectFeed({ token, onSnapshot, onChange, onSettings, onState, onRejected }) {
  let socket = null
  let attempt = 0
  let timer = null
  let stopped = false

  const url = () => `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v2/websocket`

  function schedule() {
    if (stopped || timer) return
    // Socket failures while the gateway answers: wait longer each time (reset by a snapshot).
    const delay = Math.min(maxSocketDelayMs, pollMs * 2 ** Math.max(0, attempt - 1))
    onState('reconnecting', Math.round(delay / 1000))
    const mine = setTimeout(async () => {
      const answered = await reachable()
      // Stopped, or reconnected another way (online, visible) while the poll was out.
      if (stopped || timer !== mine) return
      timer = null
      if (!answered) {
        attempt = 0
        return schedule()
      }
      attempt += 1
      open()
    }, delay)
    timer = mine
  }

  function open() {
    if (stopped) return
    onState('connecting')
    socket = new WebSocket(url())
    socket.addEventListener('open', () => socket.send(JSON.stringify({ accesstoken: token })))
    socket.addEventListener('message', (event) => {
      let frame
      try {
        frame = JSON.parse(event.data)
      } catch {
        return
      }
      if (frame.type === 'ACTIVE_ORDERS') {
        attempt = 0
        onState('live')
        onSnapshot(frame.items ?? [])
      } else if (typeof frame.type === 'string' && frame.type.startsWith('ORDER_')) {
        onChange(frame)
      } else if (frame.type === 'SCREEN_SETTINGS') {
        // This screen's settings changed (here, in another browser of its name, or by an admin).
        onSettings?.(frame.screen)
      } else if (frame.returnCode === -2 || frame.returnCode === -1) {
        stopped = true
        onRejected(frame.message ?? null)
      }
    })
    socket.addEventListener('close', () => {
      socket = null
      if (!stopped) schedule()
    })
    // An error is always followed by close, which schedules the retry.
    socket.addEventListener('error', () => {})
  }

  function reconnectNow() {
    if (stopped || (socket && socket.readyState <= WebSocket.OPEN)) return
    clearTimeout(timer)
    timer = null
    attempt = 0
    open()
  }
  const onVisible = () => document.visibilityState === 'visible' && reconnectNow()
  window.addEventListener('online', reconnectNow)
  document.addEventListener('visibilitychange', onVisible)

  open()
  return {
    close() {
      stopped = true
      clearTimeout(timer)
      window.removeEventListener('online', reconnectNow)
      document.removeEventListener('visibilitychange', onVisible)
      socket?.close()
    },
  }
}
