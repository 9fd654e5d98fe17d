// The keyboard side of the board: keys from a keyboard or a USB bump bar (web/board/keys.js
// has the map) select cards, clear, page, undo and page through the screen. They act on the
// selected card (web/board/selection.js), which the focus follows, so Tab, clicks and keys
// agree on it; a key that cannot act says why in a notice, never silently.
import { commandFor, moveIndex } from './keys.js'
import { t } from './i18n.js'

/**
 * @param {{ cards: () => HTMLElement[], inView: () => HTMLElement[], columns: () => number,
 *   selected: () => HTMLElement | null, act: (card: HTMLElement, action: string) => string | null,
 *   primary: (card: HTMLElement) => string | null, undo: () => string | null,
 *   select: (card: HTMLElement) => void, find: (number: string) => HTMLElement | null,
 *   closeMenus: () => boolean, say: (message: string) => void }} deps
 *   act, primary and undo answer why they could not act (null when they did).
 */
export function setupBumpBar(deps) {
  let typed = null
  let typedTimer = null
  const announce = document.getElementById('typed-number')

  const showTyped = () => {
    if (announce) {
      announce.hidden = typed === null
      announce.textContent = typed === null ? '' : t('findTableOrOrder', { typed })
    }
  }
  const stopTyping = () => {
    typed = null
    clearTimeout(typedTimer)
    showTyped()
  }
  const tell = (refusal) => {
    if (refusal) deps.say(refusal)
  }

  document.addEventListener('keydown', (event) => {
    const target = event.target
    if (target instanceof HTMLElement && target.closest('input, select, textarea, summary, dialog, [contenteditable="true"]')) return
    // Only on the orders view of a signed-in board.
    if (document.getElementById('app').hidden || document.getElementById('cards-view').hidden) return
    // Enter and Space on a button or link keep their own meaning; on a card (or with the
    // focus lost to the page) they are the selected card's main action.
    const onControl = target instanceof HTMLElement && target.closest('button, a, [role="button"]')
    if ((event.key === 'Enter' || event.key === ' ') && typed === null) {
      if (onControl || event.ctrlKey || event.altKey || event.metaKey) return
      const card = deps.selected()
      tell(card ? deps.primary(card) : t('noOrderSelected'))
      event.preventDefault()
      return
    }
    const command = commandFor(event, typed)
    if (!command) return
    const cards = deps.cards()
    const selected = deps.selected()
    const current = selected ? cards.indexOf(selected) : -1
    switch (command.type) {
      case 'position': {
        const card = deps.inView()[command.position - 1]
        if (card) deps.select(card)
        else deps.say(t('noOrderAtPosition', { position: command.position }))
        break
      }
      case 'start-number':
        typed = ''
        showTyped()
        typedTimer = setTimeout(stopTyping, 8000)
        break
      case 'digit':
        typed += command.digit
        showTyped()
        break
      case 'digit-back':
        typed = typed.slice(0, -1)
        showTyped()
        break
      case 'number': {
        const number = typed
        stopTyping()
        if (number === '') break
        const card = deps.find(number)
        if (card) deps.select(card)
        else deps.say(t('noTableOrOrder', { number }))
        break
      }
      case 'cancel-number':
        stopTyping()
        break
      case 'move': {
        if (!cards.length) {
          deps.say(t('noOrdersOnBoard'))
          break
        }
        const next = moveIndex(current, command.by, cards.length, deps.columns())
        if (next === current) deps.say(t(command.by === 1 || command.by === 'row' ? 'noOrderAfter' : 'noOrderBefore'))
        else deps.select(cards[next])
        break
      }
      case 'first':
      case 'last':
        if (cards.length) deps.select(command.type === 'first' ? cards[0] : cards[cards.length - 1])
        else deps.say(t('noOrdersOnBoard'))
        break
      case 'act':
        // Backspace and Delete keep their meaning on a control when no card is selected.
        if (!selected && event.key !== 'b' && event.key !== 'B' && onControl) return
        tell(selected ? deps.act(selected, command.action) : t('noOrderSelected'))
        break
      case 'undo':
        tell(deps.undo())
        break
      case 'page': {
        window.scrollBy({ top: command.by * Math.max(200, window.innerHeight - 200), behavior: 'instant' })
        const first = deps.inView()[0]
        if (first) deps.select(first)
        break
      }
      case 'escape':
        if (!deps.closeMenus()) return
        break
    }
    event.preventDefault()
  })
}
