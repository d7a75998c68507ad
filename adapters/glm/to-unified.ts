/**
 * A GLM-V reply → unified actions, with points on the 0–999 grid (the adapter declares it, the
 * executor scales). What each call does follows the reference executors (GLM-V's OSWorld agent,
 * trycua/cua `glm45v.py`, hud's GLM tool): `key` splits on '+', and a repeated last key presses
 * the combo that many times (`down+down`); `scroll` turns `step` notches (5 by default) at
 * start_box; `WAIT()` waits 5 s; `DONE()` and `FAIL()` run nothing and are reported.
 */
import type { ActionOf, UnifiedAction } from '../../src/actions/index.ts'
import type { AdapterContext, Translation } from '../../src/pipeline/adapter.ts'
import { UnparseableModelOutput } from '../../src/errors/errors.ts'
import { parseCombo } from '../../src/keys/index.ts'
import { parsePythonCalls, PythonSyntaxError, type PyValue } from '../shared/python-calls.ts'
import type { ActionQuery } from '../../src/schemas/action-query.ts'
import { unreachable } from '../../src/errors/unreachable.ts'
import { FUNCTIONS, functionName, type FunctionName } from './functions.ts'
import { replyText, type GlmInput } from './model-output.ts'
import { quote, splitReply } from './reply.ts'

/** `scroll` without `step`: the action space's default. */
export const DEFAULT_STEP = 5
/** `WAIT()`: "Wait for 5 seconds before proceeding to the next action." */
export const WAIT_SECONDS = 5

export interface GlmMeta {
  reasoning: string | null
  thought: string | null
  memory: string | null
  call: { name: FunctionName, args: Record<string, PyValue>, text: string }
  element_info: string | null
  /** DONE or FAIL: the model ends the task; null otherwise. */
  finished: 'DONE' | 'FAIL' | null
}

type XY = [number, number]
type Button = ActionOf<'click_mouse'>['button']

export function toUnified (input: GlmInput, context: AdapterContext<ActionQuery>): Translation<GlmMeta> {
  const text = replyText(input).trim()
  if (text === '') throw new UnparseableModelOutput('the GLM reply is empty')
  const reply = splitReply(text)
  const fail = (why: string): never => {
    throw new UnparseableModelOutput(`cannot run the GLM action ${quote(reply.action)}: ${why}`)
  }
  let parsed
  try {
    // GLM writes text unescaped: type(content='it's here') is the text "it's here".
    parsed = parsePythonCalls(reply.action, { lenientQuotes: true })
  } catch (error) {
    if (!(error instanceof PythonSyntaxError)) throw error
    return fail(error.message)
  }
  if (parsed.length !== 1 || !parsed[0]!.called) fail('expected one call, like left_click(start_box=\'[x,y]\')')
  const written = parsed[0]!
  const name = functionName(written.name) ?? fail(`unknown action '${written.name}' (known: ${Object.keys(FUNCTIONS).join(', ')})`)
  const allowed: readonly string[] = FUNCTIONS[name]
  if (written.args.length > 0) fail(`write the arguments by name, like ${name}(${allowed.map((key) => `${key}=…`).join(', ') || ''})`)
  for (const key of Object.keys(written.kwargs)) {
    if (!allowed.includes(key)) fail(`${name} has no argument '${key}' (${allowed.length ? `it takes ${allowed.join(', ')}` : 'it takes none'})`)
  }
  const args = written.kwargs
  const info = args.element_info
  const meta: GlmMeta = {
    reasoning: reply.reasoning,
    thought: reply.thought,
    memory: reply.memory,
    call: { name, args, text: written.text },
    element_info: typeof info === 'string' ? info : null,
    finished: null,
  }
  const actions = translate(name, args, meta, fail)
  return { actions, screenshot: context.query.screenshot !== false, meta }
}

function translate (name: FunctionName, args: Record<string, PyValue>, meta: GlmMeta, fail: (why: string) => never): UnifiedAction[] {
  const point = (key: 'start_box' | 'end_box'): XY => readBox(key, args[key], fail)
  const string = (key: string): string | undefined => {
    const value = args[key]
    if (value === undefined || value === null) return undefined
    if (typeof value !== 'string') return fail(`${key} must be a string, not ${JSON.stringify(value)}`)
    return value
  }
  const holdKeys = (): string[] | undefined => {
    const written = string('hold_keys')
    return written?.trim() ? parseCombo(written).map((key) => key.name) : undefined
  }
  const click = (button: Button, clicks = 1): UnifiedAction[] => {
    const hold = holdKeys()
    return [{ action: 'click_mouse', button, coordinates: point('start_box'), ...(clicks > 1 && { num_clicks: clicks }), ...(hold && { hold_keys: hold }) }]
  }
  switch (name) {
    case 'left_click': return click('left')
    case 'right_click': return click('right')
    case 'middle_click': return click('middle')
    case 'left_double_click': return click('left', 2)
    case 'hover': return [{ action: 'move_mouse', coordinates: point('start_box') }]
    case 'left_drag': return [{ action: 'drag_mouse', path: [point('start_box'), point('end_box')] }]
    case 'key': return pressKeys(string('keys'), fail)
    case 'type': {
      const content = string('content') ?? fail("type needs content, like type(content='hello')")
      return content === '' ? [] : [{ action: 'type_text', text: content }]
    }
    case 'scroll': {
      const direction = string('direction')?.trim().toLowerCase()
      const step = args.step ?? DEFAULT_STEP
      if (typeof step !== 'number' || !Number.isInteger(step) || step < 1) fail(`step must be a whole number of wheel notches, not ${JSON.stringify(step)}`)
      const signs: Record<string, ['delta_x' | 'delta_y', number]> = { down: ['delta_y', 1], up: ['delta_y', -1], right: ['delta_x', 1], left: ['delta_x', -1] }
      if (direction === undefined || !Object.hasOwn(signs, direction)) return fail(`direction must be 'up' or 'down', not ${JSON.stringify(args.direction ?? null)}`)
      const [axis, sign] = signs[direction]!
      return [{ action: 'scroll', coordinates: point('start_box'), [axis]: sign * (step as number) }]
    }
    case 'WAIT': return [{ action: 'wait', duration: WAIT_SECONDS }]
    case 'DONE':
    case 'FAIL':
      meta.finished = name
      return []
    default:
      return unreachable(name, 'GLM action')
  }
}

/** `[x, y]` on the 0–999 grid, written as the string '[x,y]' or a list; a 4-number box is its centre. */
function readBox (key: string, value: PyValue | undefined, fail: (why: string) => never): XY {
  if (value === undefined || value === null) return fail(`needs ${key}, like ${key}='[500,500]'`)
  let numbers: unknown[]
  if (typeof value === 'string') {
    const inner = value.trim().replace(/^\[+|\]+$/g, '')
    numbers = inner.split(',').map((part) => part.trim() === '' ? NaN : Number(part))
  } else if (Array.isArray(value)) {
    numbers = value.length === 1 && Array.isArray(value[0]) ? value[0] : value
  } else {
    return fail(`${key} must be '[x,y]', not ${JSON.stringify(value)}`)
  }
  if (!numbers.every((n) => typeof n === 'number' && Number.isFinite(n))) return fail(`${key}=${JSON.stringify(value)} is not '[x,y]' with two numbers on the 0–999 grid`)
  const n = numbers as number[]
  if (n.length === 2) return [Math.trunc(n[0]!), Math.trunc(n[1]!)]
  if (n.length === 4) return [Math.trunc((n[0]! + n[2]!) / 2), Math.trunc((n[1]! + n[3]!) / 2)]
  return fail(`${key}=${JSON.stringify(value)} has ${n.length} numbers; a point has 2, [x,y]`)
}

/** 'ctrl+c' is one combo; a repeated last key ('down+down', 'ctrl+tab+tab') repeats the combo. */
function pressKeys (written: string | undefined, fail: (why: string) => never): UnifiedAction[] {
  if (!written?.trim()) return fail("key needs keys, like key(keys='ctrl+c')")
  const names = parseCombo(written).map((key) => key.name)
  let repeats = 1
  while (names.length > 1 && names[names.length - 1] === names[names.length - 2]) {
    names.pop()
    repeats++
  }
  return Array.from({ length: repeats }, (): UnifiedAction => ({ action: 'press_key', keys: [...names] }))
}
