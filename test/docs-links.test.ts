/**
 * The documentation holds together: every relative link and #anchor of README.md, docs/*.md and
 * packages/*\/README.md names a file, directory or heading of the tree (GitHub's anchor rules; no
 * network); the README stays a landing page (at most 300 lines, its quick start exactly the four
 * commands, a link to every page of the manual).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { anchors, brokenLink, links, slug } from './helpers/markdown-links.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const docs = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort()
const packageReadmes = existsSync(join(ROOT, 'packages'))
  ? readdirSync(join(ROOT, 'packages')).map((name) => join('packages', name, 'README.md')).filter((path) => existsSync(join(ROOT, path)))
  : []
const files = ['README.md', ...docs.map((name) => join('docs', name)), ...packageReadmes]

t.test('GitHub\'s anchor slugs', async (t) => {
  const cases: Array<[string, string]> = [
    ['Quick start', 'quick-start'],
    ['`anthropic`', 'anthropic'],
    ['OpenAI Agents SDK (`@computer-gateway/agent/openai-agents`)', 'openai-agents-sdk-computer-gatewayagentopenai-agents'],
    ['Agents finishing real tasks (`npm run tasks`)', 'agents-finishing-real-tasks-npm-run-tasks'],
    ['Screenshots: format and settling', 'screenshots-format-and-settling'],
    ['Dialects: each model\'s own format', 'dialects-each-models-own-format'],
    ['[Security](security.md) and more', 'security-and-more'],
    ['snake_case stays', 'snake_case-stays'],
  ]
  for (const [heading, anchor] of cases) t.equal(slug(heading), anchor, heading)
})

for (const file of files) {
  t.test(`${file}: every relative link resolves`, async (t) => {
    const found = links(join(ROOT, file))
    const relative = found.filter((link) => !/^[a-z][a-z0-9+.-]*:/i.test(link.target))
    for (const link of relative) t.equal(brokenLink(link), undefined, `${file}:${link.line} ${link.target}`)
    t.pass(`${relative.length} relative links of ${found.length}`)
  })
}

t.test('README.md is a landing page', async (t) => {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
  t.ok(lines <= 300, `${lines} lines, at most 300`)
  t.ok(anchors(join(ROOT, 'README.md')).has('quick-start'), 'a "Quick start" heading')
  const quickStart = /^## Quick start\n[\s\S]*?^```bash\n([\s\S]*?)^```/m.exec(text)
  t.strictSame(quickStart?.[1]?.trim().split('\n'), ['npm run setup', 'npm start', 'npm test', 'npm run test:python', 'npm run test:image'], 'the quick start is the five commands, one a line')
  t.match(text, /!\[[^\]]*\]\(docs\/full-desktop\.png\)/, 'the picture')
  const targets = new Set(links(join(ROOT, 'README.md')).map((link) => link.target.split('#')[0]))
  for (const name of docs) t.ok(targets.has(`docs/${name}`), `links docs/${name}`)
})
