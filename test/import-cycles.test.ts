/**
 * No import cycle among the project's own modules (src, routes, adapters, drivers, fleet, scripts,
 * bin, packages/agent/src): a cycle makes a module's exports undefined while the other half of the cycle is still
 * loading, an error that depends on which file was imported first. Every import, type-only
 * ones too, is an edge: a type cycle is the same tangle of concerns.
 */
import t from 'tap'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const FOLDERS = ['src', 'routes', 'adapters', 'drivers', 'fleet', 'scripts', 'bin', 'packages/agent/src']
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g

function files (dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : files(path)
    return /\.(ts|js)$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}

/** Module → the modules it imports (relative imports only: packages cannot import us). */
export function importGraph (paths: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const path of paths) {
    const source = readFileSync(path, 'utf8')
    const targets = [...source.matchAll(IMPORT)].map((m) => resolve(dirname(path), m[1] ?? m[2]!)).filter((target) => paths.includes(target))
    graph.set(path, [...new Set(targets)])
  }
  return graph
}

/** The strongly connected components with more than one module, or one importing itself (Tarjan). */
export function cycles (graph: Map<string, string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (node: string) => {
    index.set(node, next); low.set(node, next); next++
    stack.push(node); onStack.add(node)
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) { visit(target); low.set(node, Math.min(low.get(node)!, low.get(target)!)) } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!))
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = []
      let member: string
      do { member = stack.pop()!; onStack.delete(member); component.push(member) } while (member !== node)
      if (component.length > 1 || graph.get(node)!.includes(node)) found.push(component.sort())
    }
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return found
}

t.test('the check finds a cycle, of two modules and through a dynamic import', async (t) => {
  const a = '/x/a.ts'
  const b = '/x/b.ts'
  const c = '/x/c.ts'
  t.strictSame(cycles(new Map([[a, [b]], [b, [a]], [c, [a]]])), [[a, b]])
  t.strictSame(cycles(new Map([[a, [b]], [b, [c]], [c, []]])), [])
  t.strictSame(cycles(new Map([[a, [a]]])), [[a]])
  t.match("import { x } from './b.ts'\nconst m = await import('../c.ts')\nexport type { Y } from './d.ts'".match(IMPORT), [/\.\/b\.ts/, /\.\.\/c\.ts/, /\.\/d\.ts/])
})

t.test('no import cycle in the tree', async (t) => {
  const graph = importGraph(FOLDERS.flatMap((folder) => files(join(ROOT, folder))))
  t.ok(graph.size > 200, `${graph.size} modules read`)
  t.ok([...graph.values()].reduce((sum, targets) => sum + targets.length, 0) > 500, 'their imports resolved')
  t.strictSame(cycles(graph).map((cycle) => cycle.map((path) => relative(ROOT, path))), [])
})
