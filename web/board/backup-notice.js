// A small warning in the board's header when the box's backups need a person: the last one
// failed, or the last good one is over two days old (GET /api/v2/gateway `backup.warning`).
// Hidden otherwise: a working backup is nothing to look at during service.

/** @returns {{ hidden: boolean, text: string, title: string }} */
export function backupNotice(backup) {
  if (!backup?.warning) return { hidden: true, text: '', title: '' }
  const good = backup.lastGood ? `last good backup ${backup.lastGood.at.slice(0, 16).replace('T', ' ')}` : 'no good backup yet'
  if (backup.warning === 'failed') {
    return {
      hidden: false,
      text: 'backup failed',
      title: `The last backup failed: ${backup.last?.reason ?? 'unknown reason'}. ${good}. See gateway status on the box.`,
    }
  }
  return { hidden: false, text: 'backup overdue', title: `${good[0].toUpperCase()}${good.slice(1)}: more than two days ago. See gateway status on the box.` }
}
