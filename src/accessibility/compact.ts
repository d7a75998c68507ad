/**
 * CUP's compact text encoding (the reference SDK's format.py): a header, then one line per
 * node, indented by depth, with short codes for roles, states and actions:
 *
 *   [e14] btn "Save" 120,40 80x24 {foc} [clk] val="…" (L2 ph="…")
 *
 * The tree is pruned first: unnamed generics and structural wrappers give way to their
 * children, decorative images, empty text, window chrome and zero-size or offscreen inert
 * nodes are dropped, and children wholly outside a scrolling container are counted, not
 * listed. Ids are those of the full snapshot, so every line can be acted on.
 */
import type { CupAction, CupEnvelope, CupNode, CupRect, CupRole, CupState } from './schema.ts'

export const ROLE_CODES: Readonly<Record<CupRole, string>> = {
  alert: 'alrt', alertdialog: 'adlg', application: 'app', banner: 'bnr', button: 'btn', cell: 'cel', checkbox: 'chk',
  columnheader: 'colh', combobox: 'cmb', complementary: 'cmp', contentinfo: 'ci', dialog: 'dlg', document: 'doc', form: 'frm',
  generic: 'gen', grid: 'grd', group: 'grp', heading: 'hdg', img: 'img', link: 'lnk', list: 'lst', listitem: 'li', log: 'log',
  main: 'main', marquee: 'mrq', menu: 'mnu', menubar: 'mnub', menuitem: 'mi', menuitemcheckbox: 'mic', menuitemradio: 'mir',
  navigation: 'nav', none: 'none', option: 'opt', progressbar: 'pbar', radio: 'rad', region: 'rgn', row: 'row', rowheader: 'rowh',
  scrollbar: 'sb', search: 'srch', searchbox: 'sbx', separator: 'sep', slider: 'sld', spinbutton: 'spn', status: 'sts', switch: 'sw',
  tab: 'tab', table: 'tbl', tablist: 'tabs', tabpanel: 'tpnl', text: 'txt', textbox: 'tbx', timer: 'tmr', titlebar: 'ttlb',
  toolbar: 'tlbr', tooltip: 'ttp', tree: 'tre', treeitem: 'ti', window: 'win',
}

export const STATE_CODES: Readonly<Record<CupState, string>> = {
  busy: 'bsy', checked: 'chk', collapsed: 'col', disabled: 'dis', editable: 'edt', expanded: 'exp', focused: 'foc', hidden: 'hid',
  mixed: 'mix', modal: 'mod', multiselectable: 'msel', offscreen: 'off', pressed: 'prs', readonly: 'ro', required: 'req', selected: 'sel',
}

export const ACTION_CODES: Readonly<Record<CupAction, string>> = {
  click: 'clk', collapse: 'col', decrement: 'dec', dismiss: 'dsm', doubleclick: 'dbl', expand: 'exp', focus: 'foc', increment: 'inc',
  longpress: 'lp', rightclick: 'rclk', scroll: 'scr', select: 'sel', setvalue: 'sv', toggle: 'tog', type: 'typ',
}

/** The compact lines' limits on text. */
export const COMPACT_NAME_MAX = 80
export const COMPACT_VALUE_MAX = 120
/** A snapshot too big for a model's context is cut here, at a line end, and says so. */
export const COMPACT_MAX_CHARS = 40_000

const CHROME_ROLES: ReadonlySet<CupRole> = new Set(['scrollbar', 'separator', 'titlebar', 'tooltip', 'status'])
const COLLAPSIBLE_ROLES: ReadonlySet<CupRole> = new Set(['region', 'document', 'main', 'complementary', 'navigation', 'search', 'banner', 'contentinfo', 'form'])
const VALUE_ROLES: ReadonlySet<CupRole> = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton', 'slider'])

interface Clipped { above: number, below: number, left: number, right: number }
type Pruned = CupNode & { clipped?: Clipped }

const meaningful = (node: CupNode) => (node.actions ?? []).some((action) => action !== 'focus')
const count = (nodes: readonly CupNode[]): number => nodes.reduce((sum, node) => sum + 1 + count(node.children ?? []), 0)

function hoisted (node: CupNode): boolean {
  if (node.name) return false
  return node.role === 'generic' || node.role === 'region' || (node.role === 'group' && !meaningful(node))
}

function skipped (node: CupNode, parent: CupNode | null, siblings: number): boolean {
  if (CHROME_ROLES.has(node.role)) return true
  if (node.bounds && (node.bounds.w === 0 || node.bounds.h === 0)) return true
  if (node.states?.includes('offscreen') && !meaningful(node)) return true
  if (node.role === 'img' && !node.name) return true
  if (node.role === 'text' && !node.name) return true
  // A text that only repeats its named parent's label.
  if (node.role === 'text' && parent?.name && siblings === 1) return true
  return false
}

const outside = (b: CupRect, view: CupRect) => b.x + b.w <= view.x || b.x >= view.x + view.w || b.y + b.h <= view.y || b.y >= view.y + view.h

function direction (b: CupRect, view: CupRect): keyof Clipped {
  if (b.y + b.h <= view.y) return 'above'
  if (b.y >= view.y + view.h) return 'below'
  if (b.x + b.w <= view.x) return 'left'
  return 'right'
}

function intersect (bounds: CupRect, view: CupRect | null): CupRect {
  if (!view) return bounds
  const x = Math.max(bounds.x, view.x)
  const y = Math.max(bounds.y, view.y)
  return { x, y, w: Math.max(0, Math.min(bounds.x + bounds.w, view.x + view.w) - x), h: Math.max(0, Math.min(bounds.y + bounds.h, view.y + view.h) - y) }
}

function pruneNode (node: CupNode, parent: CupNode | null, siblings: number, view: CupRect | null): Pruned[] {
  const children = node.children ?? []
  if (hoisted(node)) return children.flatMap((child) => pruneNode(child, parent, children.length, view))
  if (skipped(node, parent, siblings)) return []
  const childView = node.actions?.includes('scroll') && node.bounds ? intersect(node.bounds, view) : view
  const kept: Pruned[] = []
  const clipped: Clipped = { above: 0, below: 0, left: 0, right: 0 }
  let anyClipped = false
  for (const child of children) {
    const empty = child.bounds && (child.bounds.w === 0 || child.bounds.h === 0)
    if (!empty && childView && child.bounds && outside(child.bounds, childView)) {
      clipped[direction(child.bounds, childView)] += count([child])
      anyClipped = true
      continue
    }
    kept.push(...pruneNode(child, node, children.length, childView))
  }
  // An unnamed landmark or document that now wraps a single node says nothing of its own.
  if (kept.length === 1 && COLLAPSIBLE_ROLES.has(node.role) && !node.name && !meaningful(node)) return kept
  const { children: _children, ...rest } = node
  const pruned: Pruned = { ...rest }
  if (kept.length) pruned.children = kept
  if (anyClipped) pruned.clipped = clipped
  return [pruned]
}

/** CUP's compact pruning: the nodes a model needs, with the full snapshot's ids. */
export function prune (tree: readonly CupNode[], screen: { w: number, h: number }): Pruned[] {
  const view = { x: 0, y: 0, w: screen.w, h: screen.h }
  return tree.flatMap((root) => pruneNode(root, null, tree.length, view))
}

const quoted = (text: string, max: number) =>
  `"${(text.length > max ? `${text.slice(0, max)}...` : text).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, ' ')}"`

export function formatLine (node: CupNode): string {
  const parts = [`[${node.id}]`, ROLE_CODES[node.role]]
  if (node.name) parts.push(quoted(node.name, COMPACT_NAME_MAX))
  const actions = (node.actions ?? []).filter((action) => action !== 'focus')
  // Only what can be acted on carries coordinates; the rest is context, referred to by id.
  if (node.bounds && actions.length) parts.push(`${node.bounds.x},${node.bounds.y} ${node.bounds.w}x${node.bounds.h}`)
  if (node.states?.length) parts.push(`{${node.states.map((state) => STATE_CODES[state]).join(',')}}`)
  if (actions.length) parts.push(`[${actions.map((action) => ACTION_CODES[action]).join(',')}]`)
  if (node.value && VALUE_ROLES.has(node.role)) parts.push(`val=${quoted(node.value, COMPACT_VALUE_MAX)}`)
  const a = node.attributes
  if (a) {
    const extra: string[] = []
    if (a.level !== undefined) extra.push(`L${a.level}`)
    if (a.placeholder) extra.push(`ph=${quoted(a.placeholder.slice(0, 30), 30)}`)
    if (a.orientation) extra.push(a.orientation.slice(0, 1))
    if (a.valueMin !== undefined || a.valueMax !== undefined) extra.push(`range=${a.valueMin ?? ''}..${a.valueMax ?? ''}`)
    if (extra.length) parts.push(`(${extra.join(' ')})`)
  }
  return parts.join(' ')
}

function emit (node: Pruned, depth: number, lines: string[]): number {
  lines.push(`${'  '.repeat(depth)}${formatLine(node)}`)
  let emitted = 1
  for (const child of node.children ?? []) emitted += emit(child, depth + 1, lines)
  const c = node.clipped
  if (c) {
    const total = c.above + c.below + c.left + c.right
    const directions = (['above', 'below', 'left', 'right'] as const).filter((d) => c[d] > 0)
      .map((d) => ({ above: 'up', below: 'down', left: 'left', right: 'right' })[d])
    if (total > 0) lines.push(`${'  '.repeat(depth + 1)}# ${total} more items — scroll ${directions.join('/')} to see`)
  }
  return emitted
}

export function serializeCompact (envelope: CupEnvelope, maxChars = COMPACT_MAX_CHARS): string {
  const before = count(envelope.tree)
  const lines: string[] = []
  let emitted = 0
  for (const root of prune(envelope.tree, envelope.screen)) emitted += emit(root, 0, lines)
  const header = [`# CUP ${envelope.version} | ${envelope.platform} | ${envelope.screen.w}x${envelope.screen.h}`]
  if (envelope.app) header.push(`# app: ${envelope.app.name ?? ''}`)
  header.push(`# ${emitted} nodes (${before} before pruning)`)
  const windows = envelope.windows ?? []
  if (windows.length) {
    header.push(`# --- ${windows.length} open windows ---`)
    for (const window of windows) header.push(`#   ${window.title.slice(0, 50)}${window.foreground ? ' [fg]' : ''}`)
  }
  header.push('')
  const output = `${[...header, ...lines].join('\n')}\n`
  if (maxChars <= 0 || output.length <= maxChars) return output
  const cut = output.slice(0, maxChars)
  return `${cut.slice(0, Math.max(cut.lastIndexOf('\n'), 0))}\n\n# OUTPUT TRUNCATED — exceeded ${maxChars} characters.\n# Ask for a smaller scope or max_depth.\n`
}
