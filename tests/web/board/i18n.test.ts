// Translations (docs/api.md, "Board"): every text the board shows comes from the message
// catalogue (web/board/messages.js), so a screen's language setting reaches all of it. This
// test fails on a text written into web/index.html or the board's scripts instead: a text
// node of the page outside an element marked data-i18n, an aria-label or title not marked,
// and a string literal in the scripts that reads like words for a person.
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { messages } from '../../../web/board/messages.js'
// @ts-expect-error: a plain browser ES module without types
import { plural, setLanguage, t as translate } from '../../../web/board/i18n.js'

const root = path.resolve(import.meta.dirname, '../../..')
const en = messages.en as Record<string, string>
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort()

t.test('every language has every message, with the same placeholders', async (t) => {
  t.same(Object.keys(messages).sort(), ['de', 'en', 'es'])
  for (const language of ['es', 'de']) {
    const catalogue = messages[language] as Record<string, string>
    t.same(Object.keys(catalogue).sort(), Object.keys(en).sort(), `${language}: the same keys as English`)
    const differing = Object.keys(en).filter((key) => JSON.stringify(placeholders(en[key]!)) !== JSON.stringify(placeholders(catalogue[key] ?? '')))
    t.same(differing, [], `${language}: the same placeholders`)
  }
})

t.test("t() fills placeholders in the screen's language, numbers by Intl, plurals by Intl.PluralRules", async (t) => {
  setLanguage('de')
  t.equal(translate('noOrderAtPosition', { position: 7 }), 'Keine Bestellung an Position 7')
  t.equal(plural('overflowBelow', 1), '1 weitere Bestellung unten ↓')
  t.equal(plural('overflowBelow', 1200), '1.200 weitere Bestellungen unten ↓')
  setLanguage('es')
  t.equal(translate('levelCritical'), 'Muy retrasado')
  setLanguage('fr')
  t.equal(translate('levelCritical'), 'Very late', 'a language without a catalogue: English')
  t.equal(translate('no-such-key'), 'no-such-key')
  setLanguage('en')
})

/** Text nodes and attributes of web/index.html that do not come from the catalogue. */
function hardCodedInPage(html: string): string[] {
  const found: string[] = []
  const page = html.replace(/<!--[\s\S]*?-->/g, '').replace(/<code>[^<]*<\/code>/g, '')
  // Text between tags: the tag before it must be the opening tag of an element marked data-i18n.
  for (const match of page.matchAll(/(<[^<>]+>)([^<>]*[A-Za-z]{2,}[^<>]*)(?=<)/g)) {
    const [, tag, text] = match
    const key = /\sdata-i18n="([^"]+)"/.exec(tag!)?.[1]
    if (/^<option [^>]*\blang="/.test(tag!)) continue // a language's own name, in that language
    if (!key || tag!.startsWith('</')) found.push(`text "${text!.trim()}"`)
    else if (en[key] !== text!.trim().replace(/\s+/g, ' ')) found.push(`data-i18n="${key}": "${text!.trim()}" is not its English message "${en[key]}"`)
  }
  for (const match of page.matchAll(/<[^<>]+>/g)) {
    for (const attribute of ['aria-label', 'title']) {
      const value = new RegExp(`\\s${attribute}="([^"]*)"`).exec(match[0])?.[1]
      if (!value || !/[A-Za-z]{2,}/.test(value)) continue
      const key = new RegExp(`\\sdata-i18n-${attribute}="([^"]+)"`).exec(match[0])?.[1]
      if (!key) found.push(`${attribute}="${value}"`)
      else if (en[key] !== value) found.push(`data-i18n-${attribute}="${key}": "${value}" is not its English message`)
    }
  }
  return found
}

/** The class names web/*.css styles: a literal made of them is a class list. */
const cssClasses = new Set(
  ['styles.css', 'board.css'].flatMap((name) =>
    [...readFileSync(path.join(root, 'web', name), 'utf8').matchAll(/\.([a-z][a-z0-9-]*)/g)].map((match) => match[1]!),
  ),
)

/** Keyboard keys and DOM words, which read like words but are not shown to anyone. */
const notWords = new Set([
  'Enter',
  'Escape',
  'Backspace',
  'Delete',
  'Home',
  'End',
  'PageDown',
  'PageUp',
  'ArrowLeft',
  'ArrowRight',
  'ArrowUp',
  'ArrowDown',
  'Bearer',
])

/** String literals of a script that read like words for a person (comments and developers' errors left out). */
function hardCodedInScript(source: string): string[] {
  const code = source
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
    .replace(/new (Error|TypeError)\((['`])(?:[^\\]|\\.)*?\2/g, '')
  const found: string[] = []
  for (const match of code.matchAll(/'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\]|\\.)*)`/g)) {
    const literal = (match[1] ?? match[2] ?? '').replace(/\$\{[^}]*\}/g, ' ').trim()
    // Selectors, paths, keys, markup (its words come from t()), inline styles, class lists and
    // values compared with what the gateway sends: not words for a person.
    if (/^[.#[/<]/.test(literal) || literal.includes('[') || notWords.has(literal)) continue
    if (/^([a-z-]+:[^;]+;)+/.test(literal) || literal.split(/\s+/).every((word) => cssClasses.has(word))) continue
    if (/[!=]==\s*$/.test(code.slice(Math.max(0, match.index! - 5), match.index))) continue
    if (/[A-Za-z]{2,}[ ,:;!?]+[A-Za-z]{2,}/.test(literal) || /^[A-Z][a-z]{2,}/.test(literal)) found.push(literal)
  }
  return found
}

/** Scripts whose text is not in the catalogue yet (none: a script added with hard-coded text fails). */
const notYetTranslated: string[] = []

t.test('no hard-coded text in web/index.html: every text and label comes from the catalogue', async (t) => {
  t.same(hardCodedInPage(readFileSync(path.join(root, 'web/index.html'), 'utf8')), [])
})

t.test("no hard-coded text in the board's scripts", async (t) => {
  const scripts = ['app.js', ...readdirSync(path.join(root, 'web/board')).map((name) => `board/${name}`)].filter(
    (name) => name.endsWith('.js') && name !== 'board/messages.js',
  )
  for (const name of scripts) {
    const found = hardCodedInScript(readFileSync(path.join(root, 'web', name), 'utf8'))
    if (notYetTranslated.includes(path.basename(name)) && name.startsWith('board/'))
      t.ok(found.length > 0, `${name}: not translated yet (${found.length} texts)`)
    else t.same(found, [], `${name}: every text from the catalogue`)
  }
})

t.test('the check finds a hard-coded text', async (t) => {
  t.same(hardCodedInPage('<p>Late orders</p><p data-i18n="lateNow">Late now</p><b aria-label="Close it">x</b>'), [
    'text "Late orders"',
    'aria-label="Close it"',
  ])
  t.same(hardCodedInScript("say('No order here')\nsay(t('noOrderSelected'))\nthrow new Error('not a density: x')\nconst k = 'ArrowLeft'"), ['No order here'])
})
