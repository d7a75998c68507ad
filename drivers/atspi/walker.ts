/**
 * Reads the tree from AT-SPI: the window list, and subtrees breadth first. Every node of a
 * level is read at once (each node's calls in parallel too), so a capture costs about one
 * round of round trips per level rather than per node; at most BATCH nodes are in flight, which
 * keeps the bus's pending-reply limits far away. Objects that vanish mid-walk are left out.
 * Invisible objects (no VISIBLE state) are left out with their subtrees: toolkits keep whole
 * hidden panels in the tree (Chromium's window has dozens) and nobody can act on them.
 */
import type { AtspiRef, RawNode, RawWindow, WalkLimits, WalkResult } from '../../src/accessibility/source.ts'
import { AtspiState, hasState } from '../../src/accessibility/states.ts'
import { NULL_PATH, REGISTRY_ROOT, type AtspiClient } from './atspi-client.ts'
import { frameOf, placed, type Frame } from './placement.ts'

const BATCH = 96
/** AT-SPI's MANAGES_DESCENDANTS state. */
const MANAGES_DESCENDANTS = 31
/** A table that manages its descendants may claim millions of children. */
const MAX_CHILDREN = 2000
/** A table claiming at most this many cells has them listed at once (the first MAX_CHILDREN kept). */
const LISTED_CHILDREN_MAX = 20000
const TEXT_MAX = 2000
const LABELLED_BY = 2
const TEXT_ROLES = new Set(['text', 'entry', 'spin button', 'combo box', 'autocomplete', 'terminal', 'table cell'])
const NAMED_BY_LABEL = new Set(['text', 'entry', 'spin button', 'combo box', 'slider', 'password text'])

export async function listWindows (client: AtspiClient): Promise<RawWindow[]> {
  const apps = await client.children(REGISTRY_ROOT)
  const perApp = await Promise.all(apps.map(async (app) => {
    try {
      const [{ name }, pid, windows] = await Promise.all([
        client.accessible(app),
        client.pid(app.bus).catch(() => null),
        client.children(app),
      ])
      return await Promise.all(windows.map(async (ref): Promise<RawWindow | null> => {
        try {
          const [role, { name: title }, states, extents] = await Promise.all([
            client.roleName(ref), client.accessible(ref), client.state(ref), client.extents(ref).catch(() => null),
          ])
          return { ref, role, title, states, extents, app: { name, pid } }
        } catch {
          return null
        }
      }))
    } catch {
      // An application that quit (or hangs) since the registry listed it.
      return []
    }
  }))
  return perApp.flat().filter((window): window is RawWindow => window !== null)
}

interface Pending {
  ref: AtspiRef
  depth: number
  parent: RawNode | null
  frame: Frame | null
}

export async function walk (client: AtspiClient, roots: AtspiRef[], limits: WalkLimits): Promise<WalkResult> {
  const result: RawNode[] = []
  const frames = await Promise.all(roots.map((ref) => frameOf(client, ref)))
  let level: Pending[] = roots.map((ref, i) => ({ ref, depth: 0, parent: null, frame: frames[i]! }))
  let nodes = 0
  let truncated = false
  while (level.length > 0) {
    const next: Pending[] = []
    for (let start = 0; start < level.length; start += BATCH) {
      const room = limits.maxNodes - nodes
      if (room <= 0) {
        truncated = true
        break
      }
      const batch = level.slice(start, start + Math.min(BATCH, room))
      const read = await Promise.all(batch.map((pending) => readNode(client, pending.ref, pending.frame)))
      read.forEach((entry, i) => {
        if (!entry) return
        const pending = batch[i]!
        const { node, children } = entry
        nodes++
        if (pending.parent) pending.parent.children.push(node)
        else result.push(node)
        if (children.length === 0) return
        if (pending.depth >= limits.maxDepth) {
          truncated = true
          return
        }
        for (const ref of children) next.push({ ref, depth: pending.depth + 1, parent: node, frame: pending.frame })
      })
    }
    level = next
  }
  return { roots: result, nodes, truncated }
}

/** One object, or null when it is gone or invisible. */
async function readNode (client: AtspiClient, ref: AtspiRef, frame: Frame | null): Promise<{ node: RawNode, children: AtspiRef[] } | null> {
  try {
    const [role, { name, description }, states, interfaces, attributes] = await Promise.all([
      client.roleName(ref), client.accessible(ref), client.state(ref), client.interfaces(ref), client.attributes(ref),
    ])
    if (!hasState(states, AtspiState.VISIBLE) && role !== 'application') return null
    const can = (iface: string) => interfaces.includes(iface)
    const readsText = can('Text') && (can('EditableText') || TEXT_ROLES.has(role)) && role !== 'password text'
    const needsLabel = !name && NAMED_BY_LABEL.has(role)
    // A spreadsheet's table manages its descendants: it claims every cell of the sheet, and
    // asking for them all keeps the application busy past the call's timeout. Its cells on
    // screen are read through its Table interface instead. GTK's lists and trees (a file
    // manager's, a file dialog's) manage their descendants too but claim only the cells they
    // have: those are read as children, as the cells at a point of theirs are not always theirs.
    const managed = hasState(states, MANAGES_DESCENDANTS) && can('Table') && can('Component') &&
      await claimsMoreThan(client, ref, LISTED_CHILDREN_MAX)
    // The application's own idea of its position is what its hit-testing takes.
    const reported = can('Component') ? client.extents(ref).catch(() => null) : Promise.resolve(null)
    const [extents, actions, text, value, labelledBy, children] = await Promise.all([
      placed(client, ref, frame, reported),
      can('Action') ? client.actionNames(ref).catch(() => []) : [],
      readsText ? client.text(ref, TEXT_MAX).catch(() => null) : null,
      can('Value') ? client.value(ref).catch(() => null) : null,
      needsLabel ? labelOf(client, ref) : null,
      managed ? reported.then((box) => visibleCells(client, ref, box)).catch(() => []) : client.children(ref).catch(() => []),
    ])
    const node: RawNode = {
      ref, role, name, description, states, interfaces, attributes, extents, actions, text, value, labelledBy, children: [],
    }
    return { node, children: children.slice(0, MAX_CHILDREN) }
  } catch {
    return null
  }
}

/** Whether an object claims more than `count` children (or cannot say how many). */
async function claimsMoreThan (client: AtspiClient, ref: AtspiRef, count: number): Promise<boolean> {
  const claimed = await client.property<number>(ref, 'Accessible', 'ChildCount').catch(() => -1)
  return !(Number.isInteger(claimed) && claimed >= 0 && claimed <= count)
}

/** The cells of a table that manages its descendants that are on screen: from the one at its top-left corner to the one at its bottom-right, at most MAX_CHILDREN. */
async function visibleCells (client: AtspiClient, table: AtspiRef, box: [number, number, number, number] | null): Promise<AtspiRef[]> {
  if (!box || box[2] <= 2 || box[3] <= 2) return []
  const [x, y, width, height] = box
  const cellAt = async (px: number, py: number) => {
    const [bus, path] = await client.call<[string, string]>(table, 'Component', 'GetAccessibleAtPoint', 'iiu', [px, py, 0])
    if (path === NULL_PATH) throw new Error('no cell there')
    const index = await client.call<number>({ bus, path }, 'Accessible', 'GetIndexInParent')
    return Promise.all([
      client.call<number>(table, 'Table', 'GetRowAtIndex', 'i', [index]),
      client.call<number>(table, 'Table', 'GetColumnAtIndex', 'i', [index]),
    ])
  }
  const [[top, left], [bottom, right]] = await Promise.all([cellAt(x + 1, y + 1), cellAt(x + width - 2, y + height - 2)])
  const columns = Math.max(0, Math.min(right - left + 1, MAX_CHILDREN))
  const rows = Math.max(0, Math.min(bottom - top + 1, Math.floor(MAX_CHILDREN / Math.max(1, columns))))
  const cells = await Promise.all(Array.from({ length: rows * columns }, (_, i) =>
    client.call<[string, string]>(table, 'Table', 'GetAccessibleAt', 'ii', [top + Math.floor(i / columns), left + (i % columns)]).catch(() => null)))
  return cells.filter((cell): cell is [string, string] => cell !== null && cell[1] !== NULL_PATH).map(([bus, path]) => ({ bus, path }))
}

async function labelOf (client: AtspiClient, ref: AtspiRef): Promise<string | null> {
  try {
    const labels = await client.related(ref, LABELLED_BY)
    const names = await Promise.all(labels.map(async (label) => (await client.accessible(label)).name))
    return names.filter(Boolean).join(' ') || null
  } catch {
    return null
  }
}
