// A small warning in the board's header when the box's backups need a person: the last one
// failed, or the last good one is over two days old (GET /api/v2/gateway `backup.warning`).
// Hidden otherwise: a working backup is nothing to look at during service.

import { t } from './i18n.js'

/** @returns {{ hidden: boolean, text: string, title: string }} */
export function backupNotice(backup) {
  if (!backup?.warning) return { hidden: true, text: '', title: '' }
  const at = backup.lastGood?.at.slice(0, 16).replace('T', ' ')
  const good = (start) => (at ? t(start ? 'backupLastGoodStart' : 'backupLastGood', { at }) : t(start ? 'backupNoneGoodStart' : 'backupNoneGood'))
  if (backup.warning === 'failed') {
    return {
      hidden: false,
      text: t('backupFailed'),
      title: t('backupFailedTitle', { reason: backup.last?.reason ?? t('backupUnknownReason'), good: good(false) }),
    }
  }
  return { hidden: false, text: t('backupOverdue'), title: t('backupOverdueTitle', { good: good(true) }) }
}
