import t from 'tap'
import { isCanonicalPath } from '../../../lib/api/request-path.ts'

t.test('paths every reader sees alike pass; paths the URL parser would restructure do not', async (t) => {
  for (const path of [
    '/',
    '/api/v2',
    '/api/v2/',
    '/api/v2/activeorders/12',
    '/assets/board.js',
    '/api/v2/activeorders/%31%32',
    '/a.b/c..d/.e/f.',
    '/%2e%2e%2e',
    '/api/v2/orders/%2ex',
  ]) {
    t.ok(isCanonicalPath(path), path)
    t.equal(new URL(path, 'http://gw').pathname, path, `${path}: the URL parser leaves it as it is`)
  }
  for (const path of [
    '/assets/../api/v1/activeorders',
    '/assets/%2e%2e/api/v1/activeorders',
    '/assets/%2E./api',
    '/assets/.%2e/api',
    '/./api/v2',
    '/api/v2/.',
    '/api/v2/..',
    '/api/%2e/v2',
    '//api/v1/activeorders',
    '/api//v1/activeorders',
    '/api/v2//',
    '/assets\\..\\api/v1/activeorders',
    'api/v2',
    '',
  ]) {
    t.notOk(isCanonicalPath(path), path)
  }
})
