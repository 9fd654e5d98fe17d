// One path decides a request: the request guard (request-guard.ts) and the router must judge
// the same one. A target such as /assets/../api/v1/activeorders is /assets/... to a check that
// reads the raw path and /api/v1/activeorders to the URL parser that routes it (issue 25: a
// foreign page's POST created an order that way). Rather than normalise in one place and hope
// every other reader does the same, a path the URL parser would restructure is refused (400):
// no client needs "." or ".." segments (encoded or not), empty segments ("//") or
// backslashes, which the parser turns into slashes.

/** True when the path is in the form every reader sees alike. */
export function isCanonicalPath(path: string): boolean {
  if (path[0] !== '/' || path.includes('\\') || path.includes('//')) return false
  if (!path.includes('.') && !path.includes('%')) return true
  for (const segment of path.split('/')) {
    const dots = segment.length <= 6 ? segment.replace(/%2e/gi, '.') : ''
    if (dots === '.' || dots === '..') return false
  }
  return true
}
