// The shapes of HQ's release and rollout answers, for its OpenAPI document (the functions in
// functions/hq name them in their config's response).

const nullableString = { type: ['string', 'null'] }

export const releaseSchema = {
  type: 'object',
  required: ['id', 'version', 'file', 'sha256', 'size', 'keyId', 'uploadedAt'],
  properties: {
    id: { type: 'integer' },
    version: { type: 'string' },
    file: { type: 'string', description: 'tracker-gateway-<version>.tar.gz' },
    sha256: { type: 'string' },
    size: { type: 'integer', description: 'Bytes' },
    keyId: { type: 'string', description: 'The id of the release key that signed it' },
    uploadedAt: { type: 'string', format: 'date-time' },
  },
}

export const siteRolloutStates = ['pending', 'told', 'downloading', 'waiting-for-window', 'upgrading', 'done', 'failed', 'skipped', 'cancelled']

export const rolloutSchema = {
  type: 'object',
  required: ['id', 'release', 'state', 'waves', 'currentWave', 'sites'],
  properties: {
    id: { type: 'integer' },
    release: {
      type: 'object',
      properties: { id: { type: 'integer' }, version: { type: 'string' }, sha256: { type: 'string' }, size: { type: 'integer' } },
    },
    state: { enum: ['running', 'paused', 'halted', 'cancelled', 'done'] },
    reason: { ...nullableString, description: 'Why it halted (the failed sites and their reasons) or was cancelled' },
    waves: { type: 'array', items: { type: 'array', items: { type: 'string' } }, description: 'Site ids per wave, the canary first' },
    currentWave: { type: 'integer', description: 'Index into waves' },
    waveStartedAt: { ...nullableString, format: 'date-time' },
    waveDoneAt: { ...nullableString, format: 'date-time', description: 'The soak time runs from here' },
    soakSeconds: { type: 'integer' },
    offline: { enum: ['catch-up', 'skip'] },
    startedBy: nullableString,
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    sites: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          siteId: { type: 'string' },
          wave: { type: 'integer' },
          state: { enum: siteRolloutStates },
          reason: nullableString,
          attempt: { type: 'integer' },
          version: { ...nullableString, description: 'What its status says it runs' },
          online: { type: 'boolean' },
        },
      },
    },
  },
}
