// The keyboard and USB bump bars (which type keys): the usual kitchen-display keys. The key
// map is documented in docs/api.md ("Keyboard and bump bar"); commandFor is the whole map.
//   1-9, 0      select the card at that position (0: the tenth) among those on screen
//   # or n, digits, Enter   select the order with that number
//   ← → ↑ ↓, Home, End      move the selection between cards
//   Enter / Space           the selected card's main action (a button's own activation)
//   b, Delete, Backspace    clear ("bump") the selected card
//   p                       page the selected card's guest
//   u, Ctrl+Z               undo the last clear (recall it when its undo window is over)
//   PageDown / PageUp       the next or previous screenful of cards
//   Escape                  close a menu or the number being typed
export function commandFor(event, typingNumber) {
  if (event.altKey || event.metaKey) return null
  const key = event.key
  if (event.ctrlKey) return key === 'z' || key === 'Z' ? { type: 'undo' } : null
  if (typingNumber !== null) {
    if (/^[0-9]$/.test(key)) return { type: 'digit', digit: key }
    if (key === 'Enter') return { type: 'number', number: typingNumber }
    if (key === 'Backspace') return { type: 'digit-back' }
    if (key === 'Escape') return { type: 'cancel-number' }
    return { type: 'cancel-number' }
  }
  if (/^[1-9]$/.test(key)) return { type: 'position', position: Number(key) }
  if (key === '0') return { type: 'position', position: 10 }
  switch (key) {
    case '#':
    case 'n':
    case 'N':
      return { type: 'start-number' }
    case 'ArrowRight':
      return { type: 'move', by: 1 }
    case 'ArrowLeft':
      return { type: 'move', by: -1 }
    case 'ArrowDown':
      return { type: 'move', by: 'row' }
    case 'ArrowUp':
      return { type: 'move', by: '-row' }
    case 'Home':
      return { type: 'first' }
    case 'End':
      return { type: 'last' }
    case 'b':
    case 'B':
    case 'Delete':
    case 'Backspace':
      return { type: 'act', action: 'clear' }
    case 'p':
    case 'P':
      return { type: 'act', action: 'page' }
    case 'u':
    case 'U':
      return { type: 'undo' }
    case 'PageDown':
      return { type: 'page', by: 1 }
    case 'PageUp':
      return { type: 'page', by: -1 }
    case 'Escape':
      return { type: 'escape' }
    default:
      return null
  }
}

/** The index of the card to select after a move of `by` (1, -1, 'row', '-row') in `columns`. */
export function moveIndex(index, by, count, columns) {
  if (count === 0) return -1
  if (index < 0) return 0
  const step = by === 'row' ? columns : by === '-row' ? -columns : by
  const next = index + step
  if (next < 0 || next >= count) return index
  return next
}
