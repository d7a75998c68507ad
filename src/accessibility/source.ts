/**
 * What a desktop's accessibility layer hands the spec: plain data read from AT-SPI, before
 * any mapping to CUP. drivers/atspi reads it; src/accessibility maps, numbers and formats it.
 * Recorded captures (test/fixtures/accessibility) are exactly this shape.
 */
import { UnsupportedAction } from '../errors/errors.ts'

/** Where an accessible object lives: its owner's bus name and its object path. */
export interface AtspiRef {
  bus: string
  path: string
}

export interface RawNode {
  ref: AtspiRef
  /** AT-SPI's role name, e.g. 'push button', 'document web'. */
  role: string
  name: string
  description: string
  /** The two 32-bit words of the AT-SPI state set (bit n of word n>>5 is AtspiStateType n). */
  states: [number, number]
  /** Short interface names: 'Action', 'Component', 'Text', 'EditableText', 'Value', … */
  interfaces: string[]
  /** Object attributes (xml-roles, tag, level, placeholder-text, …). */
  attributes: Record<string, string>
  /** Screen coordinates [x, y, width, height], when the object has the Component interface. */
  extents: [number, number, number, number] | null
  /** Action names (Action.GetName), e.g. 'click', 'activate', 'doDefault'. */
  actions: string[]
  /** The text of text inputs (Text interface), capped; null when not read. */
  text: string | null
  value: { current: number, min: number, max: number } | null
  /** The name of the object labelling this one (LABELLED_BY), for unnamed inputs. */
  labelledBy: string | null
  children: RawNode[]
}

export interface RawWindow {
  ref: AtspiRef
  role: string
  title: string
  states: [number, number]
  extents: [number, number, number, number] | null
  app: { name: string, pid: number | null }
}

export interface WalkLimits {
  maxDepth: number
  maxNodes: number
}

export interface WalkResult {
  roots: RawNode[]
  /** Nodes read. */
  nodes: number
  /** True when a limit cut the walk short. */
  truncated: boolean
}

/** An element as it is now, read again when it is acted on. */
export interface LiveElement {
  states: [number, number]
  /** Action names in index order ('' for an unnamed one): an action is done by its index. */
  actions: string[]
  interfaces: string[]
  /** Screen coordinates [x, y, width, height], when it has the Component interface. */
  extents: [number, number, number, number] | null
}

/** Thrown by every element call when the object no longer exists (AT-SPI's UnknownObject, the application gone, DEFUNCT). */
export class ElementGone extends Error {}

/**
 * What can be done to one object through AT-SPI (org.a11y.atspi.Action, Component, Value,
 * EditableText, Selection). Each call answers what the application answered: false when it
 * declined. Every call rejects with ElementGone when the object no longer exists.
 */
export interface ElementControl {
  inspect: (ref: AtspiRef) => Promise<LiveElement>
  /** Action.DoAction by index. */
  doAction: (ref: AtspiRef, index: number) => Promise<boolean>
  /** Component.GrabFocus. */
  grabFocus: (ref: AtspiRef) => Promise<boolean>
  /** The Value interface: current, bounds and the smallest step (0 when the application names none). */
  value: (ref: AtspiRef) => Promise<{ current: number, min: number, max: number, step: number }>
  /** Writes Value.CurrentValue. */
  setValue: (ref: AtspiRef, value: number) => Promise<void>
  /** EditableText.SetTextContents: replaces the whole text. */
  setText: (ref: AtspiRef, text: string) => Promise<boolean>
  /** Selection.SelectChild on the parent, at the object's index in it; false when the parent has no Selection. */
  select: (ref: AtspiRef) => Promise<boolean>
}

/** A desktop's accessibility tree, read live, and its elements acted on. */
export interface AccessibilitySource {
  /** Why the tree cannot be read on this desktop (e.g. no X display), or undefined when it can. */
  unavailable: () => string | undefined
  /** Every top-level window of every application on the accessibility bus. */
  windows: () => Promise<RawWindow[]>
  /** Walks the subtrees under the given objects, breadth first, within the limits. */
  walk: (roots: AtspiRef[], limits: WalkLimits) => Promise<WalkResult>
  elements: ElementControl
  /**
   * What an application started on the desktop needs in its environment to expose its tree
   * (the session and accessibility bus addresses); starts the bus if need be.
   */
  environment: () => Promise<Record<string, string>>
  /**
   * The desktop's X server was replaced: make the bus findable on the new one at once (an
   * application started there before our next call would otherwise find no bus, and never
   * look again).
   */
  desktopReplaced?: () => Promise<void>
  close: () => Promise<void>
}

/**
 * The source of a desktop that has no accessibility tree (the fake driver's, or an app built
 * without one): every read and every element call is refused with `reason`.
 */
export function noAccessibility (reason: string): AccessibilitySource {
  const refuse = async (): Promise<never> => { throw new UnsupportedAction(reason) }
  return {
    unavailable: () => reason,
    windows: refuse,
    walk: refuse,
    elements: { inspect: refuse, doAction: refuse, grabFocus: refuse, value: refuse, setValue: refuse, setText: refuse, select: refuse },
    environment: refuse,
    close: async () => {},
  }
}
