/**
 * Copy-paste stays out: jscpd (an npm package, so this runs wherever `npm test` does) counts
 * the clones of 6 lines or more over our code and tests. MAX_CLONES is today's count: a new
 * copy fails here, and the way out is one shared piece of code, not a higher number.
 * Lowering it when a clone is removed keeps the ratchet tight.
 */
import t from 'tap'
import { execFile } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const FOLDERS = ['src', 'routes', 'adapters', 'drivers', 'fleet', 'scripts', 'bin', 'test', 'bench', 'stress', 'packages/agent/src', 'packages/agent/test', 'packages/agent/examples']
const MAX_CLONES = 0
const JSCPD = join(ROOT, 'node_modules/.bin/jscpd')

interface Clone { firstFile: { name: string, start: number, end: number }, secondFile: { name: string, start: number, end: number } }

function clones (paths: string[], cwd: string): Promise<Clone[]> {
  const output = mkdtempSync(join(tmpdir(), 'cg-jscpd-'))
  const args = ['--silent', '--reporters', 'json', '--output', output, '--format', 'typescript,javascript',
    '--min-lines', '6', '--min-tokens', '50', '--ignore', '**/node_modules/**,**/dist/**,**/.tap/**,**/coverage/**', ...paths]
  return new Promise((resolve, reject) => execFile(JSCPD, args, { cwd, timeout: 100_000 }, (error) => {
    try {
      if (error) throw error
      resolve((JSON.parse(readFileSync(join(output, 'jscpd-report.json'), 'utf8')) as { duplicates: Clone[] }).duplicates)
    } catch (failure) {
      reject(failure)
    } finally {
      rmSync(output, { recursive: true, force: true })
    }
  }))
}

const where = (clone: Clone) => `${clone.firstFile.name}:${clone.firstFile.start}-${clone.firstFile.end} ~ ${clone.secondFile.name}:${clone.secondFile.start}-${clone.secondFile.end}`

t.test('a copied block is found', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cg-clone-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  cpSync(join(ROOT, 'src/executor/serial-queue.ts'), join(dir, 'a.ts'))
  cpSync(join(ROOT, 'src/executor/serial-queue.ts'), join(dir, 'b.ts'))
  const found = await clones(['.'], dir)
  t.ok(found.length >= 1, `found: ${found.map(where).join('; ')}`)
})

t.test(`at most ${MAX_CLONES} clones in the tree`, { timeout: 110_000 }, async (t) => {
  const found = await clones(FOLDERS, ROOT)
  t.ok(found.length <= MAX_CLONES, `${found.length} clones:\n${found.map(where).join('\n')}`)
})
