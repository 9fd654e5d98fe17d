// The keyboard side of the board: keys from a keyboard or a USB bump bar (web/board/keys.js
// has the map) select cards, clear, page, undo and page through the screen. The selected
// card is the one holding the focus, so Tab, clicks and keys agree on it.
import { commandFor, moveIndex } from './keys.js'

/**
 * @param {{ cards: () => HTMLElement[], inView: () => HTMLElement[], columns: () => number,
 *   act: (card: HTMLElement, action: string) => void, undo: () => void, select: (card: HTMLElement) => void,
 *   closeMenus: () => boolean }} deps
 */
export function setupBumpBar(deps) {
  let typed = null
  let typedTimer = null
  const announce = document.getElementById('typed-number')

  const showTyped = () => {
    if (announce) {
      announce.hidden = typed === null
      announce.textContent = typed === null ? '' : `Order #${typed}`
    }
  }
  const stopTyping = () => {
    typed = null
    clearTimeout(typedTimer)
    showTyped()
  }

  document.addEventListener('keydown', (event) => {
    const target = event.target
    if (target instanceof HTMLElement && target.closest('input, select, textarea, summary, [contenteditable="true"]')) return
    // Only on the orders view of a signed-in board.
    if (document.getElementById('app').hidden || document.getElementById('cards-view').hidden) return
    const command = commandFor(event, typed)
    if (!command) return
    const cards = deps.cards()
    const current = cards.findIndex((card) => card.contains(document.activeElement))
    switch (command.type) {
      case 'position': {
        const card = deps.inView()[command.position - 1]
        if (card) deps.select(card)
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
        const card = cards.find((candidate) => candidate.dataset.order === typed)
        stopTyping()
        if (card) deps.select(card)
        break
      }
      case 'cancel-number':
        stopTyping()
        break
      case 'move': {
        const next = moveIndex(current, command.by, cards.length, deps.columns())
        if (next >= 0) deps.select(cards[next])
        break
      }
      case 'first':
        if (cards.length) deps.select(cards[0])
        break
      case 'last':
        if (cards.length) deps.select(cards[cards.length - 1])
        break
      case 'act':
        // Backspace and Delete only act on a selected card; elsewhere they keep their meaning.
        if (current < 0) return
        deps.act(cards[current], command.action)
        break
      case 'undo':
        deps.undo()
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
