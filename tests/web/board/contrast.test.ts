// WCAG AA on the card colours: every text colour on its card background at 4.5:1 or more
// (the headline is large text, for which 3:1 would do; we hold all of it to 4.5:1). The
// colours are read from web/styles.css, so a change there is checked here.
import { readFileSync } from 'node:fs'
import t from 'tap'

const css = readFileSync(new URL('../../../web/styles.css', import.meta.url), 'utf8')

function variable(name: string): string {
  const match = new RegExp(`--${name}:\\s*(#[0-9a-fA-F]{6})\\s*;`).exec(css)
  if (!match) throw new Error(`--${name} is not a #rrggbb colour in web/styles.css`)
  return match[1]!
}

/** WCAG 2 relative luminance of #rrggbb. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  })
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
}

function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (light! + 0.05) / (dark! + 0.05)
}

t.test('the contrast formula matches known pairs', async (t) => {
  t.equal(Math.round(contrast('#ffffff', '#000000') * 10) / 10, 21)
  t.equal(Math.round(contrast('#777777', '#ffffff') * 100) / 100, 4.48, 'the classic grey that just fails AA')
})

t.test('every card colour pair passes WCAG AA (4.5:1)', async (t) => {
  for (const level of ['green', 'amber', 'red', 'critical']) {
    const background = variable(`card-${level}-bg`)
    for (const role of ['fg', 'muted']) {
      const ratio = contrast(variable(`card-${level}-${role}`), background)
      t.ok(ratio >= 4.5, `${level} ${role} on ${background}: ${ratio.toFixed(2)}:1`)
    }
  }
})

t.test('the three levels differ in lightness too, not only in hue', async (t) => {
  const [green, amber, red] = ['green', 'amber', 'red'].map((level) => luminance(variable(`card-${level}-bg`)))
  t.ok(contrast(variable('card-amber-bg'), variable('card-green-bg')) >= 3, 'amber stands out from green')
  t.ok(amber! > green! && amber! > red!, 'amber is the light one: dark text')
  t.ok(contrast(variable('card-red-bg'), variable('card-critical-bg')) >= 1.8, 'very late is darker than late, not only another hue')
})

t.test('the selected tab and every accent button: white on the accent at 4.5:1 or more', async (t) => {
  const ratio = contrast('#ffffff', variable('accent'))
  t.ok(ratio >= 4.5, `white on ${variable('accent')}: ${ratio.toFixed(2)}:1`)
})
