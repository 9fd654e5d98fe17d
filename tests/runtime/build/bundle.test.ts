// The bundle's rewriting of where a module is (placeModule): each module's import.meta and
// CommonJS's __dirname/__filename name its own file in build/, relative to the output file
// that holds it, so it finds what lies beside it as it did in the compiled tree. Run here as
// it runs in an output file: the banner's __bundleUrl is the bundle folder's file.
import path from 'node:path'
import t from 'tap'
import { placeModule } from '../../../runtime/build/bundle.ts'

const bundleFile = 'file:///opt/tracker-gateway/build/bundle/chunk-ABC.js'

/** Evaluates a rewritten expression as the output file at bundleFile would. */
function evaluate(code: string): unknown {
  return new Function('__bundleUrl', `return (${code})`)(bundleFile)
}

t.test('import.meta names the module in the compiled tree, never the main module', async (t) => {
  const place = (expression: string) => evaluate(placeModule(expression, path.join('..', 'runtime', 'host', 'static.js')))
  t.equal(place('import.meta.url'), 'file:///opt/tracker-gateway/build/runtime/host/static.js')
  t.equal(place('import.meta.filename'), '/opt/tracker-gateway/build/runtime/host/static.js')
  t.equal(place('import.meta.dirname'), '/opt/tracker-gateway/build/runtime/host')
  t.equal(place('import.meta.main'), false)
  t.equal(place("new URL('../../web/', import.meta.url).href"), 'file:///opt/tracker-gateway/build/web/', 'what the board is served from')
})

t.test('a path with spaces or non-ASCII letters is decoded back to the file name', async (t) => {
  t.equal(evaluate(placeModule('import.meta.filename', '../lib/ré sumé.js')), '/opt/tracker-gateway/build/lib/ré sumé.js')
})

t.test("a package's __dirname and __filename are declared in the module, naming its file", async (t) => {
  const code = placeModule('module.exports = [__dirname, __filename]', '../../node_modules/pino/lib/transport.js')
  t.notMatch(code, /import\.meta/, 'no import.meta: esbuild keeps it a CommonJS module')
  const module = { exports: [] as string[] }
  new Function('__bundleUrl', 'module', code)(bundleFile, module)
  t.same(module.exports, ['/opt/tracker-gateway/node_modules/pino/lib', '/opt/tracker-gateway/node_modules/pino/lib/transport.js'])
})

t.test('code that names neither is left as it is', async (t) => {
  const code = "export const a = meta.url + dirname + '__dir'"
  t.equal(placeModule(code, '../lib/a.js'), code)
})
