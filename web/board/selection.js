// The selected card: the one the bump bar's keys act on. It is kept by the order's UUID, not
// by the browser's focus: focus is lost whenever a focused element is moved, disabled or
// hidden (a card reordered, a button disabled while its request runs, a card greyed for its
// undo), and a bump bar must never act on nothing. The focus follows the selection.

/**
 * The selection after the board changed from `before` to `after` (UUIDs in board order):
 * the same card while it is there; when it left (cleared here or anywhere else), the card
 * that followed it, else the one before it; nothing selected and cards shown: the first.
 * @param {string[]} before @param {string[]} after @param {string | null} selected
 * @returns {string | null}
 */
export function keepSelection(before, after, selected) {
  const present = new Set(after)
  if (selected !== null && present.has(selected)) return selected
  const at = selected === null ? -1 : before.indexOf(selected)
  if (at >= 0) {
    const following = before.slice(at + 1).find((uuid) => present.has(uuid))
    if (following !== undefined) return following
    const preceding = before
      .slice(0, at)
      .reverse()
      .find((uuid) => present.has(uuid))
    if (preceding !== undefined) return preceding
  }
  return after[0] ?? null
}

/**
 * Where the selection goes when the card `uuid` is bumped: the next card still waiting (not
 * being cleared), else the one before it, else it stays (the only card left).
 * @param {string[]} order @param {string} uuid @param {(uuid: string) => boolean} pending
 */
export function afterBump(order, uuid, pending) {
  const at = order.indexOf(uuid)
  const waiting = (candidate) => candidate !== uuid && !pending(candidate)
  return order.slice(at + 1).find(waiting) ?? order.slice(0, Math.max(0, at)).reverse().find(waiting) ?? uuid
}
