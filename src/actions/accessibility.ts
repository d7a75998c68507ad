/**
 * Extension: the accessibility tree. `get_accessibility_tree` takes a Computer Use Protocol
 * snapshot (as GET /accessibility does) and `element_action` carries out one of CUP's fifteen
 * element verbs on an element id of the last snapshot — through the application's own
 * accessibility interfaces when it has them, else by real input at the element's centre.
 */
import { Type } from '@sinclair/typebox'
import { CUP_ACTIONS, CUP_ROLES } from '../accessibility/schema.ts'
import { ScreenshotFlag, StringEnum } from './common.ts'
import { limitMessages, type Limits } from './limits.ts'

export const ELEMENT_ID_MESSAGE = 'element must be an element id of the last accessibility snapshot, such as "e14"'
export const TREE_DEFAULTS = { scope: 'foreground', format: 'json', max_depth: 60, max_nodes: 4000 } as const

export const getAccessibilityTreeSchema = () => Type.Object({
  action: Type.Literal('get_accessibility_tree'),
  scope: Type.Optional(StringEnum(['foreground', 'desktop', 'full'], {
    default: TREE_DEFAULTS.scope,
    description: 'foreground: the active window; full: every window; desktop: the desktop surface (only the window list when there is none).',
    errorMessage: "scope must be one of 'foreground', 'desktop', 'full'",
  })),
  format: Type.Optional(StringEnum(['json', 'compact'], {
    default: TREE_DEFAULTS.format,
    description: "json: the CUP envelope in `accessibility`; compact: CUP's text encoding in `text`.",
    errorMessage: "format must be one of 'json', 'compact'",
  })),
  max_depth: Type.Optional(Type.Integer({
    minimum: 0, maximum: 200, default: TREE_DEFAULTS.max_depth, description: 'Deepest level walked below a window.',
    errorMessage: 'max_depth must be an integer from 0 to 200',
  })),
  max_nodes: Type.Optional(Type.Integer({
    minimum: 1, maximum: 20000, default: TREE_DEFAULTS.max_nodes, description: 'Most nodes walked; the rest of the tree is left out.',
    errorMessage: 'max_nodes must be an integer from 1 to 20000',
  })),
  screenshot: Type.Optional(ScreenshotFlag),
}, {
  additionalProperties: false,
  title: 'GetAccessibilityTreeAction',
  description: "Extension: a Computer Use Protocol snapshot of the accessibility tree, bounds in the request's coordinate space. " +
    'Its element ids (e0, e1, …) replace those of the previous snapshot.',
})

export const elementActionSchema = (limits: Limits) => Type.Object({
  action: Type.Literal('element_action'),
  element: Type.String({
    pattern: '^e\\d+$',
    description: 'An element id of the last snapshot (get_accessibility_tree or GET /accessibility), e.g. "e14".',
    errorMessage: ELEMENT_ID_MESSAGE,
  }),
  verb: StringEnum([...CUP_ACTIONS], {
    description: "The CUP element action. type replaces the element's text with `value`; setvalue sets a range to the number in `value` " +
      '(else the text); scroll turns the wheel 5 notches over the element towards `direction`.',
    errorMessage: `verb must be one of ${CUP_ACTIONS.map((verb) => `'${verb}'`).join(', ')}`,
  }),
  value: Type.Optional(Type.String({
    maxLength: limits.maxTextLength,
    description: 'type and setvalue only: the text (or number) to put in.',
    errorMessage: { maxLength: limitMessages(limits).value, type: 'value must be a string' },
  })),
  direction: Type.Optional(StringEnum(['up', 'down', 'left', 'right'], {
    description: 'scroll only.',
    errorMessage: "direction must be one of 'up', 'down', 'left', 'right'",
  })),
  screenshot: Type.Optional(ScreenshotFlag),
}, {
  additionalProperties: false,
  title: 'ElementAction',
  description: 'Extension: a CUP element action on an element of the last accessibility snapshot; answers what was done in `element`. ' +
    'An id the last snapshot did not issue, or whose element is gone, is a 409: take a new snapshot.',
})

/** What element_action answers besides the output: which element, and how it was reached. */
export const ElementOutcome = Type.Object({
  id: Type.String({ description: 'The element id acted on.' }),
  role: StringEnum([...CUP_ROLES], { description: 'Its CUP role.' }),
  name: Type.String({ description: 'Its accessible name.' }),
  via: StringEnum(['accessibility', 'input', 'none'], {
    description: "accessibility: the application's own interface (an AT-SPI action, Value, EditableText, Selection, GrabFocus); " +
      'input: real mouse or keyboard input at the element\'s centre; none: it was already so (expand, collapse).',
  }),
}, { $id: 'ElementOutcome', title: 'ElementOutcome' })
