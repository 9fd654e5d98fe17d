// What can be wrong with a backup file, told apart so a restore can say which: the
// passphrase (wrong or missing) or the file itself (cut short, changed, not a backup).

/** The file is encrypted and no passphrase, or another one, was given. */
export class BackupPassphraseError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'BackupPassphraseError'
  }
}

/** The file is not a whole, unchanged backup (cut short, bit rot, another kind of file). */
export class BackupDamagedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'BackupDamagedError'
  }
}
