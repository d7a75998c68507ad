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
import { REGISTRY_ROOT, type AtspiClient } from './atspi-client.ts'

const BATCH = 96
/** A table that manages its descendants may claim millions of children. */
const MAX_CHILDREN = 2000
const TEXT_MAX = 2000
const LABELLED_BY = 2
const TEXT_ROLES = new Set(['text', 'entry', 'spin button', 'combo box', 'autocomplete', 'terminal'])
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
}

export async function walk (client: AtspiClient, roots: AtspiRef[], limits: WalkLimits): Promise<WalkResult> {
  const result: RawNode[] = []
  let level: Pending[] = roots.map((ref) => ({ ref, depth: 0, parent: null }))
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
      const read = await Promise.all(batch.map((pending) => readNode(client, pending.ref)))
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
        for (const ref of children) next.push({ ref, depth: pending.depth + 1, parent: node })
      })
    }
    level = next
  }
  return { roots: result, nodes, truncated }
}

/** One object, or null when it is gone or invisible. */
async function readNode (client: AtspiClient, ref: AtspiRef): Promise<{ node: RawNode, children: AtspiRef[] } | null> {
  try {
    const [role, { name, description }, states, interfaces, attributes, children] = await Promise.all([
      client.roleName(ref), client.accessible(ref), client.state(ref), client.interfaces(ref), client.attributes(ref),
      client.children(ref).catch(() => []),
    ])
    if (!hasState(states, AtspiState.VISIBLE) && role !== 'application') return null
    const can = (iface: string) => interfaces.includes(iface)
    const readsText = can('Text') && (can('EditableText') || TEXT_ROLES.has(role)) && role !== 'password text'
    const needsLabel = !name && NAMED_BY_LABEL.has(role)
    const [extents, actions, text, value, labelledBy] = await Promise.all([
      can('Component') ? client.extents(ref).catch(() => null) : null,
      can('Action') ? client.actionNames(ref).catch(() => []) : [],
      readsText ? client.text(ref, TEXT_MAX).catch(() => null) : null,
      can('Value') ? client.value(ref).catch(() => null) : null,
      needsLabel ? labelOf(client, ref) : null,
    ])
    const node: RawNode = {
      ref, role, name, description, states, interfaces, attributes, extents, actions, text, value, labelledBy, children: [],
    }
    return { node, children: children.slice(0, MAX_CHILDREN) }
  } catch {
    return null
  }
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
