/**
 * The MCP tools: one per action of the unified action space, named as the action, plus
 * `batch`. Their input schemas are the action schemas the HTTP routes validate with (less the
 * `action` tag, which is the tool's name), made self-contained for a client; only the tool
 * descriptions, written for a model, are MCP's own.
 */
import { Type, type TSchema } from '@sinclair/typebox'
import type { ActionKind, buildActionSchemas } from '../actions/index.ts'
import { ActionResponse } from '../actions/response.ts'
import { ActionQuery } from '../schemas/action-query.ts'
import { unreachable } from '../errors/unreachable.ts'
import { selfContained } from './json-schema.ts'

type ActionSchemas = ReturnType<typeof buildActionSchemas>
type Json = Record<string, unknown>

export const BATCH_TOOL = 'batch'
export type ToolName = ActionKind | typeof BATCH_TOOL

export interface ToolAnnotations {
  title: string
  readOnlyHint: boolean
  destructiveHint?: boolean
  idempotentHint?: boolean
  openWorldHint: boolean
}

export interface ToolDefinition {
  name: ToolName
  title: string
  description: string
  inputSchema: Json & { type: 'object' }
  outputSchema: Json & { type: 'object' }
  annotations: ToolAnnotations
}

/** The tools that need a window manager; they are listed only when the desktop has one. */
export const WINDOW_TOOLS: ReadonlySet<ToolName> = new Set(['list_windows', 'focus_window', 'launch_app', 'set_window_geometry'])

/** The clipboard tools; they are listed only when the server serves the clipboard (--clipboard). */
export const CLIPBOARD_TOOLS: ReadonlySet<ToolName> = new Set(['get_clipboard', 'set_clipboard'])

/** The shell's tools (--shell) and the editor's (--files); listed only when the server serves them. */
export const SHELL_TOOLS: ReadonlySet<ToolName> = new Set(['run_command', 'bash'])
export const EDITOR_TOOLS: ReadonlySet<ToolName> = new Set(['edit'])

/** Arguments every tool takes besides its action's: the screen size the model sees. */
export const DISPLAY_ARGUMENTS = {
  display_width_px: ActionQuery.properties.display_width_px,
  display_height_px: ActionQuery.properties.display_height_px,
}

const COORDINATE_NOTE = 'Coordinates are pixels of the screenshot you were shown (take_screenshot), [x, y] from the top left.'

interface Described { title: string, description: string, readOnly: boolean }

/** What each tool is for, in the words a model needs to pick it and call it right. */
function describe (name: ToolName): Described {
  switch (name) {
    case 'move_mouse': return { title: 'Move the mouse', readOnly: false, description: `Moves the mouse pointer to a point, without clicking. Use it to hover. ${COORDINATE_NOTE}` }
    case 'click_mouse': return { title: 'Click', readOnly: false, description: `Clicks a mouse button at a point (or where the pointer is, without coordinates). num_clicks 2 is a double click; click_type down/up press or release only, for holding a button across calls. hold_keys holds modifiers during the click (e.g. ["ctrl"] for ctrl+click). ${COORDINATE_NOTE}` }
    case 'drag_mouse': return { title: 'Drag', readOnly: false, description: `Presses the left button at the first point of path, moves through every point and releases at the last. Use it to select text, move sliders, drag and drop. ${COORDINATE_NOTE}` }
    case 'scroll': return { title: 'Scroll', readOnly: false, description: `Turns the mouse wheel over a point: delta_y down (+) or up (-), delta_x right (+) or left (-), in wheel notches (about 3 lines each). ${COORDINATE_NOTE}` }
    case 'press_key': return { title: 'Press keys', readOnly: false, description: 'Presses a key or a combination, like ["enter"], ["ctrl", "c"] or ["ctrl+shift+t"]. Names are xdotool/X keysym names or common aliases, case-insensitive (enter, escape, tab, backspace, up, f5, super, ...). An unknown name is refused with suggestions. For text, use type_text.' }
    case 'type_text': return { title: 'Type text', readOnly: false, description: 'Types text, exactly as given and in any script (accents, CJK, emoji), into whatever has the keyboard focus: click the field first. Newlines press Enter.' }
    case 'wait': return { title: 'Wait', readOnly: true, description: 'Waits a number of seconds, for a page or application to settle. Set screenshot to see the screen after it.' }
    case 'take_screenshot': return { title: 'Take a screenshot', readOnly: true, description: 'Returns a PNG of the screen (or of region [x0, y0, x1, y1]). Its size is the coordinate space of every other tool: click where you see things in it.' }
    case 'get_cursor_position': return { title: 'Get the cursor position', readOnly: true, description: 'Reports where the mouse pointer is, in screenshot coordinates.' }
    case 'list_windows': return { title: 'List windows', readOnly: true, description: 'Lists the top-level windows (id, title, class, geometry, which one has the focus), the frontmost first.' }
    case 'focus_window': return { title: 'Focus a window', readOnly: false, description: 'Raises a window and gives it the keyboard focus. Select it by id (from list_windows), a title substring or its class.' }
    case 'launch_app': return { title: 'Launch an application', readOnly: false, description: 'Starts an application from the server\'s allow-list by name (not a command line), waits for its window and focuses it. A name not on the list is refused with the list.' }
    case 'set_window_geometry': return { title: 'Move or resize a window', readOnly: false, description: 'Moves and/or resizes a window (x, y, width, height of its content, in screenshot coordinates).' }
    case 'get_accessibility_tree': return { title: 'Read the accessibility tree', readOnly: true, description: 'Returns the accessibility tree of the foreground window (scope full: every window) as compact CUP text by default: one element per line with its id (e0, e1, ...), role, name, bounds and actions. Cheaper and more exact than a screenshot for finding controls; act on an element with element_action. Each call issues new ids.' }
    case 'element_action': return { title: 'Act on an element', readOnly: false, description: 'Carries out an action on an element of the last get_accessibility_tree: click, type (replaces its text with value), toggle, select, expand, scroll, ... by the element id. Works through the application\'s accessibility interface where it can, else by real input at the element.' }
    case 'get_clipboard': return { title: 'Read the clipboard', readOnly: true, description: 'Returns what the clipboard holds: its text, exactly, or a PNG image (type image); empty when nothing was copied. Copy with press_key ["ctrl", "c"] first to read what is selected in an application. selection primary reads the last selected text instead.' }
    case 'set_clipboard': return { title: 'Set the clipboard', readOnly: false, description: 'Puts text (exactly, any script and length up to the limit) or a PNG image (base64) on the clipboard; then press_key ["ctrl", "v"] pastes it where the focus is. Faster and more exact than type_text for long or unusual text.' }
    case 'run_command': return { title: 'Run a command', readOnly: false, description: 'Runs one command to its end as the desktop\'s user, in its home, on its display: argv (no shell) or command (a line for bash -c). Answers its exit code, stdout and stderr (each capped), and whether the timeout killed it. Start a GUI program to keep with `setsid prog &`.' }
    case 'bash': return { title: 'Run in bash', readOnly: false, description: 'Runs a command in a persistent bash session (its directory, variables and background jobs last to the next call) as the desktop\'s user, on its display. restart: true ends the session. A command past its timeout is killed with its session.' }
    case 'edit': return { title: 'Edit a file', readOnly: false, description: 'A text editor over the desktop\'s home: view (a file with line numbers, view_range [first, last], or a directory), create (file_text), str_replace (old_str must occur exactly once; new_str), insert (insert_text after insert_line), undo_edit. Paths are relative to the home or absolute inside it.' }
    case 'request_human': return { title: 'Ask for a person', readOnly: true, description: 'Asks a person to take the desktop over (a login, a CAPTCHA, a confirmation you must not give alone) and waits until they hand it back, or until timeout_s. Answers human: what they said, who, how long; or outcome timed_out. Take a screenshot afterwards: they may have changed the screen.' }
    case BATCH_TOOL: return { title: 'Run several actions', readOnly: false, description: 'Runs several actions in order as one unit: nothing else touches the desktop between them, and it stops at the first failure. Each item is an object with "action" (a tool name above, e.g. "click_mouse") and that tool\'s arguments. Every action is checked before the first runs.' }
    default: return unreachable(name)
  }
}

/** The fields of ActionResponse each tool answers besides output, error and cursor_position. */
function extraFields (name: ToolName): string[] {
  if (name === 'list_windows') return ['windows']
  if (WINDOW_TOOLS.has(name)) return ['window']
  if (name === 'get_accessibility_tree') return ['accessibility', 'text', 'truncated']
  if (name === 'element_action') return ['element']
  if (name === 'get_clipboard') return ['clipboard']
  if (SHELL_TOOLS.has(name)) return ['command_result']
  if (name === 'request_human') return ['human']
  return []
}

/**
 * A tool's result as MCP's structured content: ActionResponse with the fields that tool
 * answers. The image goes as image content, not base64 in JSON. `everything`: a batch's, where
 * any action may answer; the CUP snapshot is then only said to be an object, or every tool
 * of a tools/list would carry the whole CUP schema.
 */
function structuredResponse (fields: string[], everything = false): Json {
  const all = ActionResponse.properties as Json
  const picked = ['output', 'error', 'cursor_position', ...fields].filter((name) => name in all)
  const properties: Json = Object.fromEntries(picked.map((name) => [name, all[name]]))
  if (everything) properties.accessibility = { type: 'object', description: 'get_accessibility_tree with format json only: the CUP snapshot (see that tool).' }
  return { type: 'object', title: 'ActionResult', properties, required: (ActionResponse.required ?? []).filter((name) => picked.includes(name)) }
}

function withoutTag (member: TSchema): Json {
  const { action: _tag, ...properties } = member.properties as Json
  return { ...member, $id: undefined, title: undefined, properties: { ...properties, ...DISPLAY_ARGUMENTS }, required: (member.required as string[] ?? []).filter((name) => name !== 'action') }
}

const asObject = (schema: Json) => ({ ...schema, type: 'object' as const })

/** Every tool the server offers, built from the action schemas of its limits. */
export function buildTools (actionSchemas: ActionSchemas, shared: readonly object[]): ToolDefinition[] {
  const members = (actionSchemas.shared as readonly TSchema[]).filter((schema) => typeof (schema as { properties?: { action?: { const?: unknown } } }).properties?.action?.const === 'string')
  const tool = (name: ToolName, input: Json, output: Json): ToolDefinition => {
    const { title, description, readOnly } = describe(name)
    return {
      name,
      title,
      description,
      inputSchema: asObject(selfContained(input, shared)),
      outputSchema: asObject(selfContained(output, shared)),
      annotations: {
        title,
        readOnlyHint: readOnly,
        // Input can do anything a user can (delete, send, buy): a client should ask before it runs.
        ...(!readOnly && { destructiveHint: true, idempotentHint: false }),
        openWorldHint: true,
      },
    }
  }
  const tools = members.map((member) => {
    const name = member.properties.action.const as ActionKind
    return tool(name, withoutTag(member), structuredResponse(extraFields(name)))
  })
  const batchInput = Type.Object({ actions: actionSchemas.ActionBatch.properties.actions, ...DISPLAY_ARGUMENTS }, { additionalProperties: false })
  const batchOutput = Type.Object({ results: Type.Array(Type.Unsafe(structuredResponse([...new Set(members.flatMap((member) => extraFields(member.properties.action.const as ActionKind)))], true)), { description: 'One result per action, in order.' }) })
  tools.push(tool(BATCH_TOOL, batchInput as unknown as Json, batchOutput as unknown as Json))
  return tools
}
