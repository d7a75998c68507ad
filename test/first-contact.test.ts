/**
 * What a new user types first is what CI runs: every set-up and test command of the README's
 * quick start stands, verbatim, as a command of .ci/run, in the README's order. (`npm start`
 * serves until stopped; test/node-line.test.ts runs it as a user does, on an old machine Node.)
 */
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

t.test('the README\'s quick start commands are .ci/run\'s', async (t) => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8')
  const section = /^## Quick start\n([\s\S]*?)^## /m.exec(readme)?.[1]
  t.ok(section, 'the README has a Quick start section')
  const block = /```bash\n([\s\S]*?)```/.exec(section ?? '')?.[1] ?? ''
  const commands = block.split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'))
  t.strictSame(commands, ['npm run setup', 'npm start', 'npm test', 'npm run test:python', 'npm run test:image'], 'set up, start, test, test the Python package, test the images')

  const ci = (await readFile(join(ROOT, '.ci/run'), 'utf8')).split('\n').filter((line) => /^\S/.test(line) && !line.startsWith('#'))
  const ran = commands.filter((command) => command !== 'npm start').map((command) => ci.findIndex((line) => line === command || line.startsWith(`${command} `)))
  t.notOk(ran.includes(-1), `.ci/run runs each of them verbatim (${JSON.stringify(ran)})`)
  t.strictSame(ran, [...ran].sort((a, b) => a - b), 'in the README\'s order')
})
