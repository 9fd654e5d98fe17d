// The board in the restaurant's own words: every text the board shows comes from one message
// catalogue per language (web/board/messages.js), and numbers and times are formatted by the
// browser's Intl for that language. The language is a screen setting (docs/api.md, "Screen
// settings"). The page's fixed text is marked in web/index.html: data-i18n="key" (the
// element's text), data-i18n-aria-label, data-i18n-title; translatePage() fills them.
// tests/web/board/i18n.test.ts fails on a text in web/ that does not come from here.
import { messages } from './messages.js'

export const languages = Object.keys(messages)
let language = 'en'

export function setLanguage(next) {
  language = languages.includes(next) ? next : 'en'
}

export const currentLanguage = () => language

/** The message `key` in the screen's language (English when it has none), with {name} filled from `params`. */
export function t(key, params = {}) {
  const text = messages[language][key] ?? messages.en[key]
  if (text === undefined) return key
  return text.replace(/\{(\w+)\}/g, (_, name) => {
    const value = params[name]
    return typeof value === 'number' ? new Intl.NumberFormat(language).format(value) : String(value ?? '')
  })
}

/** The plural form of `key` for `count` ("1 more order", "2 more orders"), by Intl.PluralRules. */
export function plural(key, count, params = {}) {
  const form = new Intl.PluralRules(language).select(count)
  const chosen = (messages[language][`${key}.${form}`] ?? messages.en[`${key}.${form}`]) ? `${key}.${form}` : `${key}.other`
  return t(chosen, { count, ...params })
}

const attributes = ['aria-label', 'title']

/** Fills the page's marked text in the screen's language. */
export function translatePage(root = document) {
  for (const element of root.querySelectorAll('[data-i18n]')) {
    const text = t(element.dataset.i18n)
    if (element.textContent !== text) element.textContent = text
  }
  for (const attribute of attributes) {
    for (const element of root.querySelectorAll(`[data-i18n-${attribute}]`)) element.setAttribute(attribute, t(element.getAttribute(`data-i18n-${attribute}`)))
  }
  // The card template's text too: cards made from it start in the screen's language.
  for (const template of root.querySelectorAll('template')) translatePage(template.content)
}
