import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { recoverReplacement, replaceFile, replacementOf } from '../../../lib/store/replace-file.ts'

t.test('replaces the content through things.db~, which is gone afterwards', async (t) => {
  const file = path.join(t.testdir({}), 'things.db')
  writeFileSync(file, 'old\n')
  await replaceFile(file, 'new\n')
  t.equal(readFileSync(file, 'utf8'), 'new\n')
  t.notOk(existsSync(replacementOf(file)))
  await replaceFile(path.join(path.dirname(file), 'fresh.db'), 'first\n')
  t.equal(readFileSync(path.join(path.dirname(file), 'fresh.db'), 'utf8'), 'first\n', 'creates a file that was not there')
})

t.test('a replacement that fails leaves the file as it was', async (t) => {
  const file = path.join(t.testdir({}), 'things.db')
  writeFileSync(file, 'old\n')
  mkdirSync(replacementOf(file))
  await t.rejects(replaceFile(file, 'new\n'), { code: 'EISDIR' })
  t.equal(readFileSync(file, 'utf8'), 'old\n')
})

t.test('recovery: a lone things.db~ becomes the file; beside the file it is left for the next replacement', async (t) => {
  const dir = t.testdir({})
  const lone = path.join(dir, 'lone.db')
  writeFileSync(replacementOf(lone), 'newest\n')
  await recoverReplacement(lone)
  t.equal(readFileSync(lone, 'utf8'), 'newest\n')
  t.notOk(existsSync(replacementOf(lone)))

  const both = path.join(dir, 'both.db')
  writeFileSync(both, 'current\n')
  writeFileSync(replacementOf(both), 'unfinished')
  await recoverReplacement(both)
  t.equal(readFileSync(both, 'utf8'), 'current\n')
  await replaceFile(both, 'next\n')
  t.equal(readFileSync(both, 'utf8'), 'next\n', 'the next replacement overwrites it')

  const none = path.join(dir, 'none.db')
  await recoverReplacement(none)
  t.notOk(existsSync(none), 'nothing to recover: nothing created')
})
