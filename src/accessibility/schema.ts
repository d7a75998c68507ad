/**
 * The Computer Use Protocol's envelope (schema/cup.schema.json, version 0.1.0) as TypeBox:
 * the 59 roles, 16 states and 15 element actions, the node, the envelope. These schemas are
 * what the route answers with, what OpenAPI documents and what the tests check every
 * envelope against.
 */
import { Type, type Static, type TLiteral } from '@sinclair/typebox'

export const CUP_VERSION = '0.1.0'

export const CUP_ROLES = [
  'alert', 'alertdialog', 'application', 'banner', 'button', 'cell', 'checkbox', 'columnheader', 'combobox',
  'complementary', 'contentinfo', 'dialog', 'document', 'form', 'generic', 'grid', 'group', 'heading', 'img',
  'link', 'list', 'listitem', 'log', 'main', 'marquee', 'menu', 'menubar', 'menuitem', 'menuitemcheckbox',
  'menuitemradio', 'navigation', 'none', 'option', 'progressbar', 'radio', 'region', 'row', 'rowheader',
  'scrollbar', 'search', 'searchbox', 'separator', 'slider', 'spinbutton', 'status', 'switch', 'tab', 'table',
  'tablist', 'tabpanel', 'text', 'textbox', 'timer', 'titlebar', 'toolbar', 'tooltip', 'tree', 'treeitem', 'window',
] as const
export type CupRole = typeof CUP_ROLES[number]

export const CUP_STATES = [
  'busy', 'checked', 'collapsed', 'disabled', 'editable', 'expanded', 'focused', 'hidden', 'mixed', 'modal',
  'multiselectable', 'offscreen', 'pressed', 'readonly', 'required', 'selected',
] as const
export type CupState = typeof CUP_STATES[number]

export const CUP_ACTIONS = [
  'click', 'collapse', 'decrement', 'dismiss', 'doubleclick', 'expand', 'focus', 'increment', 'longpress',
  'rightclick', 'scroll', 'select', 'setvalue', 'toggle', 'type',
] as const
export type CupAction = typeof CUP_ACTIONS[number]

/** The protocol's limits on text (the JSON keeps 200 characters; the compact lines fewer). */
export const NAME_MAX = 200
export const VALUE_MAX = 200

const literals = <T extends string>(values: readonly T[]) => values.map((value) => Type.Literal(value)) as Array<TLiteral<T>>

export const CupRoleSchema = Type.Union(literals(CUP_ROLES), {
  description: "ARIA-derived canonical role. 'text' and 'titlebar' are CUP extensions; 'generic' is the fallback.",
})
export const CupStateSchema = Type.Union(literals(CUP_STATES), {
  description: 'A state flag; only states that are true are listed.',
})
export const CupActionSchema = Type.Union(literals(CUP_ACTIONS), {
  description: 'An element action the node supports.',
})

export const CupRect = Type.Object({
  x: Type.Integer({ description: 'Left edge.' }),
  y: Type.Integer({ description: 'Top edge.' }),
  w: Type.Integer({ minimum: 0, description: 'Width.' }),
  h: Type.Integer({ minimum: 0, description: 'Height.' }),
}, {
  additionalProperties: false,
  description: "A rectangle in the request's coordinate space (display_width_px/display_height_px, else the real screen).",
})
export type CupRect = Static<typeof CupRect>

export const CupAttributes = Type.Object({
  level: Type.Optional(Type.Integer({ minimum: 1, description: 'Heading level (1-6) or tree depth.' })),
  valueMin: Type.Optional(Type.Number({ description: 'Minimum of a range widget.' })),
  valueMax: Type.Optional(Type.Number({ description: 'Maximum of a range widget.' })),
  valueNow: Type.Optional(Type.Number({ description: 'Current value of a range widget.' })),
  orientation: Type.Optional(Type.Union([Type.Literal('horizontal'), Type.Literal('vertical')])),
  rowIndex: Type.Optional(Type.Integer()),
  colIndex: Type.Optional(Type.Integer()),
  rowCount: Type.Optional(Type.Integer()),
  colCount: Type.Optional(Type.Integer()),
  posInSet: Type.Optional(Type.Integer({ minimum: 1 })),
  setSize: Type.Optional(Type.Integer({ minimum: 0 })),
  placeholder: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  live: Type.Optional(Type.Union([Type.Literal('polite'), Type.Literal('assertive'), Type.Literal('off')])),
  autocomplete: Type.Optional(Type.Union([Type.Literal('inline'), Type.Literal('list'), Type.Literal('both'), Type.Literal('none')])),
  keyShortcut: Type.Optional(Type.String()),
  roledescription: Type.Optional(Type.String()),
}, { additionalProperties: false })
export type CupAttributes = Static<typeof CupAttributes>

export const CupPlatformLinux = Type.Object({
  atspiRole: Type.Optional(Type.String({ description: "The AT-SPI role, e.g. 'ROLE_PUSH_BUTTON'." })),
  interfaces: Type.Optional(Type.Array(Type.String(), { description: "AT-SPI interfaces, e.g. 'Action', 'Text'." })),
}, { additionalProperties: true })

export const CupNode = Type.Recursive((This) => Type.Object({
  id: Type.String({ pattern: '^e\\d+$', description: "Stable for the life of the snapshot: 'e' and a number." }),
  role: CupRoleSchema,
  name: Type.String({ maxLength: NAME_MAX, description: 'The accessible name, at most 200 characters.' }),
  description: Type.Optional(Type.String({ maxLength: NAME_MAX })),
  value: Type.Optional(Type.String({ maxLength: VALUE_MAX, description: 'The current value of an input, slider, progress bar…' })),
  bounds: Type.Optional(CupRect),
  states: Type.Optional(Type.Array(CupStateSchema, { uniqueItems: true })),
  actions: Type.Optional(Type.Array(CupActionSchema, { uniqueItems: true })),
  attributes: Type.Optional(CupAttributes),
  children: Type.Optional(Type.Array(This)),
  platform: Type.Optional(Type.Object({ linux: Type.Optional(CupPlatformLinux) }, { additionalProperties: false })),
}, { additionalProperties: false }), { $id: 'CupNode', title: 'CupNode' })
export type CupNode = Static<typeof CupNode>

export const CupWindow = Type.Object({
  title: Type.String({ description: 'Window title.' }),
  pid: Type.Union([Type.Integer(), Type.Null()], { description: 'Process id of the application.' }),
  foreground: Type.Boolean({ description: 'Whether this is the active window.' }),
  bounds: Type.Union([CupRect, Type.Null()]),
}, { additionalProperties: true })
export type CupWindow = Static<typeof CupWindow>

export const CupScope = Type.Union([Type.Literal('foreground'), Type.Literal('desktop'), Type.Literal('full')], {
  description: 'foreground: the active window; desktop: the desktop surface (desktop frames), else only the window list; full: every window of every application.',
})
export type CupScope = Static<typeof CupScope>

export const CupEnvelope = Type.Object({
  version: Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+$' }),
  platform: Type.Union([Type.Literal('windows'), Type.Literal('macos'), Type.Literal('linux'), Type.Literal('web'), Type.Literal('android'), Type.Literal('ios')]),
  timestamp: Type.Optional(Type.Integer({ description: 'Unix epoch milliseconds of the capture.' })),
  screen: Type.Object({
    w: Type.Integer(), h: Type.Integer(), scale: Type.Optional(Type.Number()),
  }, { additionalProperties: false, description: "The screen in the request's coordinate space." }),
  app: Type.Optional(Type.Object({
    name: Type.Optional(Type.String()), pid: Type.Optional(Type.Integer()), bundleId: Type.Optional(Type.String()),
  }, { additionalProperties: false })),
  scope: Type.Optional(Type.Union([Type.Literal('overview'), Type.Literal('foreground'), Type.Literal('desktop'), Type.Literal('full')])),
  tree: Type.Array(CupNode, { description: 'Root nodes, one per window.' }),
  windows: Type.Optional(Type.Array(CupWindow, { description: 'Every visible top-level window.' })),
  tools: Type.Optional(Type.Array(Type.Object({ name: Type.String() }, { additionalProperties: true }))),
}, { additionalProperties: false, $id: 'CupEnvelope', title: 'CupEnvelope', description: 'A Computer Use Protocol snapshot of the accessibility tree.' })
export type CupEnvelope = Static<typeof CupEnvelope>

export const AccessibilityQuery = Type.Object({
  scope: Type.Optional({ ...CupScope, default: 'foreground' }),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('compact')], {
    default: 'json', description: 'json: the CUP envelope; compact: CUP\'s text encoding (one line per node, pruned).',
  })),
  max_depth: Type.Optional(Type.Integer({ minimum: 0, maximum: 200, default: 60, description: 'Deepest level walked below a window.' })),
  max_nodes: Type.Optional(Type.Integer({ minimum: 1, maximum: 20000, default: 4000, description: 'Most nodes walked; the rest of the tree is left out.' })),
  display_width_px: Type.Optional(Type.Integer({
    minimum: 1, maximum: 16384, description: "Width of the screen as the client's model sees it; bounds are scaled to this space.",
  })),
  display_height_px: Type.Optional(Type.Integer({ minimum: 1, maximum: 16384, description: "Height of the screen as the client's model sees it." })),
}, { additionalProperties: false, $id: 'AccessibilityQuery', title: 'AccessibilityQuery' })
export type AccessibilityQuery = Static<typeof AccessibilityQuery>

/** The schemas the route names, for app.addSchema and the validators (CupNode comes within the envelope). */
export const ACCESSIBILITY_SCHEMAS = [CupEnvelope, AccessibilityQuery]
