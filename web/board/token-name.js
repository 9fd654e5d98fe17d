// The name a browser's access token gets: "board-<browser>-<system>-<id>", so `gateway token
// list` tells the screens apart and `gateway token revoke <name>` signs out one of them, not
// every board (token names: 1-64 letters, digits, - or _).
const browsers = [
  [/Edg\//, 'edge'],
  [/(Firefox|FxiOS)\//, 'firefox'],
  [/(Chrome|CriOS|Chromium)\//, 'chrome'],
  [/Safari\//, 'safari'],
]
const systems = [
  [/Android/, 'android'],
  [/iPhone|iPad|iPod/, 'ios'],
  [/Windows/, 'windows'],
  [/CrOS/, 'chromeos'],
  [/Mac OS X|Macintosh/, 'mac'],
  [/Linux/, 'linux'],
]

const first = (table, text, fallback) => (table.find(([pattern]) => pattern.test(text)) ?? [null, fallback])[1]

/** userAgent and a source of random bytes, so tests can pass their own. */
export function deviceTokenName(userAgent = navigator.userAgent, randomBytes = (n) => crypto.getRandomValues(new Uint8Array(n))) {
  const id = [...randomBytes(3)].map((byte) => byte.toString(16).padStart(2, '0')).join('')
  return `board-${first(browsers, userAgent, 'browser')}-${first(systems, userAgent, 'device')}-${id}`
}
