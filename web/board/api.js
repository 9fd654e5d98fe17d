// The v2 HTTP API as the board uses it: bearer token from localStorage, JSON envelopes.
const tokenKey = 'trackerGateway.accessToken'

export const tokenStore = {
  get: () => localStorage.getItem(tokenKey),
  set: (token) => localStorage.setItem(tokenKey, token),
  clear: () => localStorage.removeItem(tokenKey),
}

/** An API answer that is not a success: carries the envelope's status, returnCode and message. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message ?? `HTTP ${status}`)
    this.status = status
    this.returnCode = body?.returnCode
  }

  /** The token is missing, malformed or revoked: the board must ask for another. */
  get unauthorized() {
    return this.status === 401 || this.returnCode === -1 || this.returnCode === -2
  }
}

/**
 * Calls the gateway with the stored token; resolves to the JSON body, rejects with ApiError.
 * keepalive lets a request finish while the page closes.
 */
export async function api(method, path, body, { keepalive = false } = {}) {
  const headers = { accept: 'application/json' }
  const token = tokenStore.get()
  if (token) headers.authorization = `Bearer ${token}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(path, { method, headers, keepalive, body: body === undefined ? undefined : JSON.stringify(body) })
  let json = null
  try {
    json = await response.json()
  } catch {
    // A body that is not JSON is reported by status alone.
  }
  if (!response.ok) throw new ApiError(response.status, json)
  return json
}

export const orderPath = (order) => `/api/v2/activeorders/${encodeURIComponent(order.uuid)}`
