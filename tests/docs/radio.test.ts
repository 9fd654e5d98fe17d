// The operator docs name each preset letter with its channel in several places; every one
// must say what lib/settings/service.ts does (docs/radio.md once gave A = 15 and D = 11).
import { readFileSync } from 'node:fs'
import t from 'tap'
import { newNetworkPreset, zigbeePresets } from '../../lib/settings/service.ts'

const docs = ['docs/radio.md', 'docs/operations.md', 'docs/api.md']
const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')

t.test('every "letter = channel", "channel (letter)" and "letter channel" pairing in the docs is the code\'s', async (t) => {
  let pairs = 0
  for (const file of docs) {
    const text = read(file).replaceAll(/\s+/g, ' ')
    const found = [
      ...[...text.matchAll(/\b([A-D]) = (\d{2})\b/g)].map((m) => [m[1], m[2]]),
      ...[...text.matchAll(/\b(\d{2}) \(([A-D])\)/g)].map((m) => [m[2], m[1]]),
      ...[...text.matchAll(/\bA (\d{2}), B (\d{2}), C (\d{2}), D (\d{2})\b/g)].flatMap((m) => ['A', 'B', 'C', 'D'].map((letter, i) => [letter, m[i + 1]])),
    ]
    for (const [letter, channel] of found) {
      pairs++
      t.equal(Number(channel), zigbeePresets[letter!]!.channel, `${file}: ${letter} = ${channel}`)
    }
  }
  t.ok(pairs >= 10, `the pairings were found (${pairs})`)
})

t.test('docs/radio.md names the default of a new gateway as the code does', async (t) => {
  const network = read('docs/radio.md').split('## Roles')[0]!.replaceAll(/\s+/g, ' ')
  t.match(network, new RegExp(`${newNetworkPreset} = ${zigbeePresets[newNetworkPreset]!.channel} \\(the default for a new gateway\\)`))
})
