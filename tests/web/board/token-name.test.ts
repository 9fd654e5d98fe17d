import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { deviceTokenName } from '../../../web/board/token-name.js'

const bytes =
  (...values: number[]) =>
  () =>
    new Uint8Array(values)

t.test('a token name per browser: browser, system and a short id, a valid token name', async (t) => {
  const android = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36'
  t.equal(deviceTokenName(android, bytes(0x0a, 0xbc, 0xff)), 'board-chrome-android-0abcff')
  t.equal(
    deviceTokenName('Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1', bytes(1, 2, 3)),
    'board-safari-ios-010203',
  )
  t.equal(
    deviceTokenName('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36 Edg/131.0', bytes(0, 0, 0)),
    'board-edge-windows-000000',
  )
  t.equal(deviceTokenName('Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', bytes(9, 9, 9)), 'board-firefox-linux-090909')
  t.equal(deviceTokenName('curl/8.0', bytes(1, 1, 1)), 'board-browser-device-010101')
  const real = deviceTokenName('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 Version/17.0 Safari/605.1.15')
  t.match(real, /^board-safari-mac-[0-9a-f]{6}$/, 'random id by default')
  t.not(real, deviceTokenName('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 Version/17.0 Safari/605.1.15'), 'two screens, two names')
})
