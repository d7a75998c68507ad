/**
 * A UI-TARS reply → unified actions, one call at a time, with points in the convention's own
 * space (the adapter declares it, the executor scales). What each call does follows ByteDance's
 * executors (`parsing_response_to_pyautogui_code` in bytedance/UI-TARS, UI-TARS-desktop's
 * NutJSOperator): a trailing newline in typed text is an Enter, a hotkey's keys are split on
 * spaces, `finished` runs nothing and is reported, `call_user` waits for a person (request_human). UI-TARS-2 / Seed's
 * `<seed:tool_call>` XML (seed-xml.ts) is read into the same calls.
 */
import type { ActionOf, UnifiedAction } from '../../src/actions/index.ts'
import type { AdapterContext, Translation, CallSpan } from '../../src/pipeline/adapter.ts'
import type { Size } from '../../src/screen/geometry.ts'
import { UnparseableModelOutput, UnsupportedAction } from '../../src/errors/errors.ts'
import { parseCombo } from '../../src/keys/index.ts'
import { parseCalls } from './calls.ts'
import { knownCall, type FunctionName, type KnownCall } from './functions.ts'
import { replyText, type UitarsInput } from './model-output.ts'
import { readPoint, toPixel } from './points.ts'
import { quote } from './quote.ts'
import { isSeedXml, parseSeedXml } from './seed-xml.ts'
import { splitSections } from './sections.ts'
import { coordinateSpace, type UitarsQuery } from './space.ts'

/** Wheel notches per scroll call: the official executor's `pyautogui.scroll(±5)`, five clicks on X11. */
export const NOTCHES_PER_SCROLL = 5
/** `wait()`: "Sleep for 5s and take a screenshot to check for any changes." (the UI-TARS prompts). */
export const WAIT_SECONDS = 5
/** `long_press` without a `time`; the prompts leave it blank and no executor defines it. */
export const LONG_PRESS_SECONDS = 1

/** request_human's message for a call_user() that gives no content. */
export const CALL_USER_MESSAGE = 'the UI-TARS agent asks for a person (call_user)'

/** The call's span of the translation's actions (`CallSpan`), and what its result needs. */
export interface UitarsCallMeta extends CallSpan {
  name: string
  /** The arguments (escapes resolved; point=/start_point=/end_point= read as start_box/end_box). */
  args: Record<string, string>
  /** The call as it appears in the reply. */
  text: string
}

export interface UitarsMeta {
  thought: string | null
  reflection: string | null
  action_summary: string | null
  calls: UitarsCallMeta[]
  /** finished(content=…): the model's final answer ('' when it gave none); null when not finished. */
  finished: string | null
  /** call_user(): the model hands over to the user ('' without content); null when it did not. */
  call_user: string | null
}

type XY = [number, number]
type Direction = 'up' | 'down' | 'left' | 'right'
const DIRECTIONS: Record<Direction, { delta_x?: number, delta_y?: number }> = {
  up: { delta_y: -NOTCHES_PER_SCROLL },
  down: { delta_y: NOTCHES_PER_SCROLL },
  left: { delta_x: -NOTCHES_PER_SCROLL },
  right: { delta_x: NOTCHES_PER_SCROLL },
}

export function toUnified (input: UitarsInput, context: AdapterContext<UitarsQuery>): Translation<UitarsMeta> {
  const text = replyText(input).trim()
  if (text === '') throw new UnparseableModelOutput('the UI-TARS reply is empty')
  const { sections, calls: parsed } = isSeedXml(text)
    ? parseSeedXml(text)
    : readTextFormat(text)
  const calls = parsed.map(knownCall)
  const space = coordinateSpace(context).size
  const actions: UnifiedAction[] = []
  const meta: UitarsMeta = {
    thought: sections.thought,
    reflection: sections.reflection,
    action_summary: sections.action_summary,
    calls: [],
    finished: null,
    call_user: null,
  }
  for (const call of calls) {
    const own = translateCall(call, space, meta)
    meta.calls.push({ name: call.name, args: call.args as Record<string, string>, text: call.text, first: actions.length, count: own.length })
    actions.push(...own)
  }
  return { actions, screenshot: context.query.screenshot !== false, meta }
}

/** The text format: labelled sections, then the calls after `Action:`. */
function readTextFormat (text: string) {
  const { actions, ...sections } = splitSections(text)
  return { sections, calls: parseCalls(actions) }
}

function translateCall (call: KnownCall, space: Size, meta: UitarsMeta): UnifiedAction[] {
  const { args } = call
  const fail = (why: string): never => {
    throw new UnparseableModelOutput(`cannot parse the UI-TARS action ${quote(call.text)}: ${why}`)
  }
  const point = (key: 'start_box' | 'end_box'): XY | undefined =>
    args[key] === undefined ? undefined : toPixel(readPoint(key, args[key]!, call.text), space)
  const needPoint = (key: 'start_box' | 'end_box'): XY => point(key) ?? fail(`${call.name} needs ${key}`)
  const click = (button: ActionOf<'click_mouse'>['button'], clicks = 1): UnifiedAction[] =>
    [{ action: 'click_mouse', button, coordinates: needPoint('start_box'), ...(clicks > 1 && { num_clicks: clicks }) }]
  const keyNames = (written: string | undefined): string[] => {
    if (!written?.trim()) fail(`${call.name} needs key, like key='ctrl c'`)
    return parseCombo(written!, { splitOnSpace: true }).map((key) => key.name)
  }
  const name: FunctionName = call.name
  switch (name) {
    case 'click':
    case 'left_single':
      return click('left')
    case 'left_double':
      return click('left', 2)
    case 'right_single':
      return click('right')
    case 'hover':
      return [{ action: 'move_mouse', coordinates: needPoint('start_box') }]
    case 'drag':
    case 'select':
      return [{ action: 'drag_mouse', path: [needPoint('start_box'), needPoint('end_box')] }]
    case 'scroll':
      return scroll(call, point('start_box'), point('end_box'), fail)
    case 'type':
      return typed(args.content ?? args.text, point('start_box'), fail)
    case 'hotkey':
      return [{ action: 'press_key', keys: keyNames(args.key ?? args.hotkey) }]
    case 'press':
    case 'keydown':
      return [{ action: 'press_key', keys: keyNames(args.key ?? args.press), press_type: 'down' }]
    case 'release':
    case 'keyup':
      return [{ action: 'press_key', keys: keyNames(args.key ?? args.press), press_type: 'up' }]
    case 'long_press': {
      const at = needPoint('start_box')
      return [
        { action: 'click_mouse', button: 'left', click_type: 'down', coordinates: at },
        { action: 'wait', duration: seconds(args.time, fail) },
        { action: 'click_mouse', button: 'left', click_type: 'up', coordinates: at },
      ]
    }
    case 'wait':
      return [{ action: 'wait', duration: WAIT_SECONDS }]
    case 'finished':
      meta.finished ??= args.content ?? ''
      return []
    case 'call_user':
      // The model hands over to a person: request_human waits until one has taken the desktop
      // over and handed it back (or its timeout), and the answer carries what they said.
      meta.call_user ??= args.content ?? ''
      return [{ action: 'request_human', message: args.content?.trim() || CALL_USER_MESSAGE }]
    case 'open_app': {
      // The phone prompt's app launcher, on a desktop: launch_app by name (the full desktop
      // knows browser, terminal, editor, files, …; the server's allow-list says which).
      const app = args.app_name?.trim()
      if (!app) fail('open_app needs app_name')
      return [{ action: 'launch_app', app: app! }]
    }
    case 'press_home':
    case 'press_back':
      throw new UnsupportedAction(`${quote(call.text)} is a UI-TARS phone action; a desktop has no ${name.slice('press_'.length)} button`)
    default: {
      const unhandled: never = name
      throw new Error(`unhandled UI-TARS action ${String(unhandled)}`)
    }
  }
}

function scroll (call: KnownCall, at: XY | undefined, to: XY | undefined, fail: (why: string) => never): UnifiedAction[] {
  const written = call.args.direction?.trim().toLowerCase()
  if (written === undefined) {
    // The phone prompt's scroll(start_box, end_box) is a swipe; the official executor drags it.
    if (at && to) return [{ action: 'drag_mouse', path: [at, to] }]
    return fail("scroll needs direction='up', 'down', 'left' or 'right'")
  }
  if (to) fail('scroll takes direction (a wheel scroll) or end_box (a swipe), not both')
  if (!Object.hasOwn(DIRECTIONS, written)) fail(`direction must be 'up', 'down', 'left' or 'right', not ${JSON.stringify(call.args.direction)}`)
  return [{ action: 'scroll', ...(at && { coordinates: at }), ...DIRECTIONS[written as Direction] }]
}

/**
 * The prompts: "If you want to submit your input, use \n at the end of content." ByteDance's
 * executors type the text without its trailing newlines and then press Enter once.
 */
function typed (content: string | undefined, at: XY | undefined, fail: (why: string) => never): UnifiedAction[] {
  if (content === undefined) return fail("type needs content, like content='hello'")
  const text = content.replace(/\n+$/, '')
  const actions: UnifiedAction[] = []
  if (at) actions.push({ action: 'click_mouse', button: 'left', coordinates: at })
  if (text) actions.push({ action: 'type_text', text })
  if (text !== content) actions.push({ action: 'press_key', keys: ['enter'] })
  return actions
}

function seconds (written: string | undefined, fail: (why: string) => never): number {
  if (written === undefined || written.trim() === '') return LONG_PRESS_SECONDS
  const value = Number(written)
  if (!Number.isFinite(value) || value <= 0) fail(`time must be a number of seconds, not ${JSON.stringify(written)}`)
  return value
}
