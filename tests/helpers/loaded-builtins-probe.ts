// Loaded into a gateway process under test with `--import` (NODE_OPTIONS): when the process
// exits, writes the Node builtins it loaded (process.moduleLoadList) to $LOADED_BUILTINS_OUT,
// so a test can check what a real gateway pulled in while it served.
import { writeFileSync } from 'node:fs'

// Node's own list of what it loaded ("NativeModule http", "Internal Binding fs", ...); not in its types.
const moduleLoadList = (process as unknown as { moduleLoadList: string[] }).moduleLoadList
const out = process.env.LOADED_BUILTINS_OUT
if (out) {
  process.on('exit', () => {
    const builtins = moduleLoadList.filter((entry) => entry.startsWith('NativeModule ')).map((entry) => entry.slice('NativeModule '.length))
    writeFileSync(out, JSON.stringify(builtins))
  })
}
