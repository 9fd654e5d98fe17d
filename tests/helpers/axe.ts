// axe-core run in a board page: the accessibility findings the browser tests hold to "nothing
// serious or critical" (the pass, the panels, the late stages, both themes).
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

export interface AxeFinding {
  id: string
  impact: string
  /** The first three elements it was found on (CSS selectors). */
  where: string[]
}

type Axe = { run: (context: Document, options: object) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> }

/** Every axe violation on the page as it is now (axe waits on timers: the page's time must flow). */
export async function axeFindings(page: Page): Promise<AxeFinding[]> {
  await page.evaluate(axeSource)
  return page.evaluate(async () => {
    const results = await (window as unknown as { axe: Axe }).axe.run(document, { resultTypes: ['violations'] })
    return results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      where: violation.nodes.slice(0, 3).map((node) => node.target.join(' ')),
    }))
  })
}

export const isSerious = (finding: AxeFinding): boolean => finding.impact === 'serious' || finding.impact === 'critical'
