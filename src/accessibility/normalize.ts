/**
 * Raw AT-SPI nodes to CUP nodes: roles, states and actions mapped, text truncated as the
 * protocol says, bounds moved into the request's coordinate space, ids numbered e0, e1, … in
 * document order. Each id keeps what the action route needs to find the element again.
 */
import type { Size } from '../screen/geometry.ts'
import { cupActions } from './actions.ts'
import { atspiRoleConstant, cupRole } from './roles.ts'
import { NAME_MAX, VALUE_MAX, type CupAttributes, type CupNode, type CupRect, type CupRole } from './schema.ts'
import type { AtspiRef, RawNode } from './source.ts'
import { AtspiState, cupStates, hasState } from './states.ts'

/** What a snapshot remembers of an element: where it lives, and its bounds on the real screen. */
export interface ElementRecord {
  ref: AtspiRef
  role: CupRole
  name: string
  /** Real screen pixels, for input at the element's centre. */
  bounds: CupRect | null
  actions: string[]
  interfaces: string[]
  /** The AT-SPI state words at the snapshot. */
  states: [number, number]
}

const VALUE_ROLES: ReadonlySet<CupRole> = new Set(['slider', 'progressbar', 'spinbutton', 'scrollbar'])
// A cell's text is its content (a spreadsheet's cells: what was entered, as shown).
const TEXT_VALUE_ROLES: ReadonlySet<CupRole> = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton', 'cell'])
const ORIENTED_ROLES: ReadonlySet<CupRole> = new Set(['scrollbar', 'slider', 'separator', 'toolbar', 'tablist'])

export const truncate = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text)

/** Real-screen rectangle → the client's space: the smallest client rectangle covering it. */
export function scaleRect (rect: CupRect, real: Size, client: Size): CupRect {
  if (real.width === client.width && real.height === client.height) return rect
  const sx = client.width / real.width
  const sy = client.height / real.height
  const x = Math.floor(rect.x * sx)
  const y = Math.floor(rect.y * sy)
  return {
    x,
    y,
    w: Math.max(0, Math.ceil((rect.x + rect.w) * sx) - x),
    h: Math.max(0, Math.ceil((rect.y + rect.h) * sy) - y),
  }
}

export interface NormalizeOptions {
  real: Size
  client: Size
  /** The first id number (a capture of several windows numbers them in one sequence). */
  firstId?: number
}

export interface Normalized {
  nodes: CupNode[]
  elements: Map<string, ElementRecord>
  nextId: number
}

export function normalize (roots: RawNode[], options: NormalizeOptions): Normalized {
  const elements = new Map<string, ElementRecord>()
  let next = options.firstId ?? 0
  const { real, client } = options

  const build = (raw: RawNode, parentRole: string | undefined): CupNode => {
    const id = `e${next++}`
    const role = cupRole({ atspiRole: raw.role, xmlRoles: raw.attributes['xml-roles'], parentRole, hasChildren: raw.children.length > 0 })
    const realBounds = boundsOf(raw)
    const outsideScreen = realBounds !== null && (realBounds.x + realBounds.w <= 0 || realBounds.y + realBounds.h <= 0 ||
      realBounds.x >= real.width || realBounds.y >= real.height)
    const states = cupStates(raw.states, outsideScreen)
    const actions = cupActions({ role, atspiActions: raw.actions, interfaces: raw.interfaces, states: raw.states })
    const name = truncate(oneLine(raw.name || raw.labelledBy || ''), NAME_MAX)
    const node: CupNode = { id, role, name }
    const description = truncate(oneLine(raw.description), NAME_MAX)
    if (description && description !== name) node.description = description
    const value = valueOf(raw, role)
    if (value) node.value = truncate(value, VALUE_MAX)
    if (realBounds) node.bounds = scaleRect(realBounds, real, client)
    if (states.length) node.states = states
    if (actions.length) node.actions = actions
    const attributes = attributesOf(raw, role)
    if (Object.keys(attributes).length) node.attributes = attributes
    node.platform = { linux: { atspiRole: atspiRoleConstant(raw.role), interfaces: raw.interfaces } }
    elements.set(id, { ref: raw.ref, role, name, bounds: realBounds, actions: raw.actions, interfaces: raw.interfaces, states: raw.states })
    const children = raw.children.map((child) => build(child, raw.role))
    if (children.length) node.children = children
    return node
  }

  const nodes = roots.map((root) => build(root, undefined))
  return { nodes, elements, nextId: next }
}

function boundsOf (raw: RawNode): CupRect | null {
  if (!raw.extents) return null
  const [x, y, w, h] = raw.extents
  // AT-SPI answers -1/-1/-1/-1 (or 0x0 at 0,0 from some toolkits) for objects not laid out.
  if (w < 0 || h < 0 || (w === 0 && h === 0)) return null
  return { x, y, w, h }
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim()

function valueOf (raw: RawNode, role: CupRole): string {
  if (raw.text !== null && TEXT_VALUE_ROLES.has(role)) return raw.text
  if (raw.value && VALUE_ROLES.has(role) && Number.isFinite(raw.value.current)) return String(raw.value.current)
  return ''
}

function attributesOf (raw: RawNode, role: CupRole): CupAttributes {
  const attributes: CupAttributes = {}
  const integer = (key: string) => {
    const value = Number(raw.attributes[key])
    return Number.isInteger(value) ? value : undefined
  }
  const level = integer('level')
  if (role === 'heading' && level !== undefined && level >= 1) attributes.level = level
  if (raw.value && VALUE_ROLES.has(role)) {
    if (Number.isFinite(raw.value.min)) attributes.valueMin = raw.value.min
    if (Number.isFinite(raw.value.max)) attributes.valueMax = raw.value.max
    if (Number.isFinite(raw.value.current)) attributes.valueNow = raw.value.current
  }
  const placeholder = raw.attributes['placeholder-text'] ?? raw.attributes.placeholder
  if (placeholder && TEXT_VALUE_ROLES.has(role)) attributes.placeholder = truncate(placeholder, NAME_MAX)
  if (ORIENTED_ROLES.has(role)) {
    if (hasState(raw.states, AtspiState.HORIZONTAL)) attributes.orientation = 'horizontal'
    else if (hasState(raw.states, AtspiState.VERTICAL)) attributes.orientation = 'vertical'
  }
  const posInSet = integer('posinset')
  const setSize = integer('setsize')
  if (posInSet !== undefined && posInSet >= 1) attributes.posInSet = posInSet
  if (setSize !== undefined && setSize >= 0) attributes.setSize = setSize
  const shortcut = raw.attributes.keyshortcuts
  if (shortcut) attributes.keyShortcut = shortcut
  const roleDescription = raw.attributes.roledescription
  if (roleDescription) attributes.roledescription = roleDescription
  return attributes
}
