// The live feed: /api/v2/websocket, token in the first frame, then a snapshot and one frame
// per change. Reconnects by itself with exponential backoff and jitter, and at once when the
// browser comes back online or the page becomes visible again.
const minDelayMs = 500
const maxDelayMs = 15_000

export function connectFeed({ token, onSnapshot, onChange, onState, onRejected }) {
  let socket = null
  let attempt = 0
  let timer = null
  let stopped = false

  const url = () => `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v2/websocket`

  function schedule() {
    if (stopped || timer) return
    const delay = Math.min(maxDelayMs, minDelayMs * 2 ** attempt) * (0.75 + Math.random() * 0.5)
    attempt += 1
    onState('reconnecting', Math.round(delay / 1000))
    timer = setTimeout(() => {
      timer = null
      open()
    }, delay)
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
      } else if (frame.returnCode === -2 || frame.returnCode === -1) {
        stopped = true
        onRejected(frame.message ?? 'Access token rejected')
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
