/**
 * What a desktop's accessibility layer hands the spec: plain data read from AT-SPI, before
 * any mapping to CUP. drivers/atspi reads it; src/accessibility maps, numbers and formats it.
 * Recorded captures (test/fixtures/accessibility) are exactly this shape.
 */

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

/** A desktop's accessibility tree, read live. */
export interface AccessibilitySource {
  /** Every top-level window of every application on the accessibility bus. */
  windows: () => Promise<RawWindow[]>
  /** Walks the subtrees under the given objects, breadth first, within the limits. */
  walk: (roots: AtspiRef[], limits: WalkLimits) => Promise<WalkResult>
  close: () => Promise<void>
}
