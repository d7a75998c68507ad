/**
 * Our AT-SPI tree in the XML that OSWorld's guest server writes (its `/accessibility` on
 * Linux) and that its agents linearise and its evaluators query: a `desktop-frame` root, one
 * element per accessible named by its role (spaces as `-`), `name` as a plain attribute, each
 * true state as `st:<state>="true"`, object attributes under `attr:`, the position and size as
 * Python tuples (`cp:screencoord="(x, y)"`, `cp:size="(w, h)"`) on visible and showing nodes,
 * a value under `val:`, `image`/`selection` flags, and a node's text as the element's text.
 * Pure: RawNode in, string out.
 */
import type { RawNode, RawWindow } from '../accessibility/source.ts'
import { hasState } from '../accessibility/states.ts'

/** The namespaces OSWorld's Linux server declares (desktop_env/server/main.py, "ubuntu"). */
export const OSWORLD_NAMESPACES = {
  st: 'https://accessibility.ubuntu.example.org/ns/state',
  attr: 'https://accessibility.ubuntu.example.org/ns/attributes',
  cp: 'https://accessibility.ubuntu.example.org/ns/component',
  doc: 'https://accessibility.ubuntu.example.org/ns/document',
  docattr: 'https://accessibility.ubuntu.example.org/ns/document/attributes',
  txt: 'https://accessibility.ubuntu.example.org/ns/text',
  val: 'https://accessibility.ubuntu.example.org/ns/value',
  act: 'https://accessibility.ubuntu.example.org/ns/action',
} as const

/**
 * AtspiStateType by value, as pyatspi names them without `STATE_`, lower case (at-spi2-core's
 * atspi-constants.h): what OSWorld writes after `st:`.
 */
export const STATE_NAMES = [
  'invalid', 'active', 'armed', 'busy', 'checked', 'collapsed', 'defunct', 'editable', 'enabled', 'expandable',
  'expanded', 'focusable', 'focused', 'has_tooltip', 'horizontal', 'iconified', 'modal', 'multi_line', 'multiselectable', 'opaque',
  'pressed', 'resizable', 'selectable', 'selected', 'sensitive', 'showing', 'single_line', 'stale', 'transient', 'vertical',
  'visible', 'manages_descendants', 'indeterminate', 'required', 'truncated', 'animated', 'invalid_entry', 'supports_autocompletion', 'selectable_text', 'is_default',
  'visited', 'checkable', 'has_popup', 'read_only',
] as const

const VISIBLE = STATE_NAMES.indexOf('visible')
const SHOWING = STATE_NAMES.indexOf('showing')

/** One application and the windows of it that were walked (each window's RawNode, walked). */
export interface AppTree {
  name: string
  windows: RawNode[]
}

/** Groups walked windows under their applications, in the order the windows came. */
export function byApplication (windows: readonly RawWindow[], walked: readonly RawNode[]): AppTree[] {
  const apps = new Map<string, AppTree>()
  for (const node of walked) {
    const window = windows.find((candidate) => candidate.ref.bus === node.ref.bus && candidate.ref.path === node.ref.path)
    const name = window?.app.name ?? ''
    const key = `${node.ref.bus}\u0000${name}`
    const app = apps.get(key) ?? { name, windows: [] }
    app.windows.push(node)
    apps.set(key, app)
  }
  return [...apps.values()]
}

/** The whole document, as OSWorld's `/accessibility` answers it under `AT`. */
export function osworldTree (apps: readonly AppTree[]): string {
  const declarations = Object.entries(OSWORLD_NAMESPACES).map(([prefix, uri]) => ` xmlns:${prefix}="${uri}"`).join('')
  const children = apps.map((app) => element('application', { name: app.name }, '', app.windows.map(nodeXml).join(''))).join('')
  return `<desktop-frame${declarations}>${children}</desktop-frame>`
}

/** One accessible and its subtree. */
export function nodeXml (node: RawNode): string {
  const attributes: Record<string, string> = { name: node.name }
  STATE_NAMES.forEach((stateName, state) => {
    if (hasState(node.states, state)) attributes[`st:${stateName}`] = 'true'
  })
  for (const [key, value] of Object.entries(node.attributes)) {
    const local = xmlName(key)
    if (local !== '') attributes[`attr:${local}`] = value
  }
  if (node.extents && hasState(node.states, VISIBLE) && hasState(node.states, SHOWING)) {
    const [x, y, width, height] = node.extents
    attributes['cp:screencoord'] = `(${x}, ${y})`
    attributes['cp:size'] = `(${width}, ${height})`
  }
  if (node.interfaces.includes('Image')) attributes.image = 'true'
  if (node.interfaces.includes('Selection')) attributes.selection = 'true'
  if (node.value) {
    attributes['val:value'] = pythonFloat(node.value.current)
    attributes['val:min'] = pythonFloat(node.value.min)
    attributes['val:max'] = pythonFloat(node.value.max)
  }
  const text = (node.text ?? '').replace(/[\ufffc\ufffd]/g, '')
  const tag = xmlName(node.role.trim().replace(/ /g, '-')) || 'unknown'
  return element(tag, attributes, text, node.children.map(nodeXml).join(''))
}

function element (tag: string, attributes: Record<string, string>, text: string, children: string): string {
  const written = Object.entries(attributes).map(([key, value]) => ` ${key}="${escape(value, true)}"`).join('')
  if (text === '' && children === '') return `<${tag}${written}/>`
  return `<${tag}${written}>${escape(text, false)}${children}</${tag}>`
}

/** Python's str() of a float, as OSWorld writes a value: always with a fractional part. */
function pythonFloat (value: number): string {
  return Number.isInteger(value) ? `${value}.0` : String(value)
}

/** A role or attribute name as an XML name: other characters as `-`, never starting with a digit, `-` or `.`. */
function xmlName (name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, '-')
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : cleaned === '' ? '' : `_${cleaned}`
}

/** Characters XML 1.0 cannot hold go; markup and (in attributes) quotes and whitespace are escaped. */
function escape (text: string, attribute: boolean): string {
  // eslint-disable-next-line no-control-regex
  const valid = text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '').replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '')
  const escaped = valid.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
  return attribute ? escaped.replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;') : escaped.replace(/\r/g, '&#13;')
}
