/**
 * Carrying out an accessibility action: the element read again, the ways
 * src/accessibility/strategy.ts lists tried in order, real input run as ordinary plans at the
 * element's centre (so it is held, released and serialised like any other input).
 */
import type { Accessibility } from '../accessibility/service.ts'
import type { ElementRecord } from '../accessibility/normalize.ts'
import { ElementGone, type LiveElement } from '../accessibility/source.ts'
import { alreadyDone, attempts, type Attempt, type ElementFacts, type InputStep } from '../accessibility/strategy.ts'
import type { Point, Size } from '../screen/geometry.ts'
import { DriverFailure, StaleElement, UnsupportedAction } from '../errors/errors.ts'
import { resolveKeys, type KeyInfo } from '../keys/index.ts'
import { unreachable } from '../errors/unreachable.ts'
import { checkFeasible, describe, NEW_SNAPSHOT, resolveElement, type ElementPlan } from './element-plan.ts'

/** An element action's real input, as the plans run.ts carries out (real pixels). */
export type InputPlan =
  | { kind: 'click_mouse', button: 'left' | 'right', clickType: 'down' | 'up' | 'click', at: Point, count: number, hold: [], screenshot: false }
  | { kind: 'press_key', keys: KeyInfo[], pressType: 'press', screenshot: false }
  | { kind: 'type_text', text: string, hold: [], screenshot: false }
  | { kind: 'scroll', at: Point, dx: number, dy: number, hold: [], screenshot: false }
  | { kind: 'wait', durationMs: number, screenshot: false }

export interface ElementRunContext {
  accessibility: Accessibility
  /** The real screen. */
  screen: Size
  /** Runs real input through the executor's ordinary plans. */
  input: (plan: InputPlan) => Promise<unknown>
  /** A real point in the client's space, for the output. */
  describe: (point: Point) => string
}

export interface ElementResult {
  output: string
  element: { id: string, role: ElementRecord['role'], name: string, via: 'accessibility' | 'input' | 'none' }
}

/** Carries out an element action: the element read again, then each way in turn until one is taken. */
export async function runElementAction (plan: ElementPlan, context: ElementRunContext): Promise<ElementResult> {
  const { accessibility } = context
  const record = plan.record ?? resolveElement(accessibility, plan.element)
  if (!plan.record) checkFeasible(plan.element, record, plan.verb, plan.params, context.screen)
  const what = describe(plan.element, record)
  const gone = () => new StaleElement(`element ${what} is gone since the snapshot; ${NEW_SNAPSHOT}`)
  const control = accessibility.elements
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn()
    } catch (error) {
      if (error instanceof ElementGone) throw gone()
      throw error
    }
  }
  const live: LiveElement = await call(() => control.inspect(record.ref))
  const facts: ElementFacts = {
    role: record.role,
    actions: live.actions,
    interfaces: live.interfaces,
    states: live.states,
    bounds: live.extents && live.extents[2] > 0 && live.extents[3] > 0
      ? { x: live.extents[0], y: live.extents[1], width: live.extents[2], height: live.extents[3] }
      : null,
  }
  const element = (via: ElementResult['element']['via']) => ({ id: plan.element, role: record.role, name: record.name, via })
  if (alreadyDone(plan.verb, facts)) {
    return { output: `${plan.verb} ${what}: already ${plan.verb === 'expand' ? 'expanded' : 'collapsed'}`, element: element('none') }
  }
  const ways = attempts(plan.verb, facts, plan.params, context.screen)
  if (ways.length === 0) {
    throw new UnsupportedAction(`element ${what} offers no way to ${plan.verb} now: no accessibility action or interface for it, and it is not on the screen`)
  }
  const declined: string[] = []
  for (const way of ways) {
    if (way.via === 'input') {
      if (way.focus) await call(() => control.grabFocus(record.ref)).catch((error) => { if (error instanceof StaleElement) throw error })
      for (const step of way.steps) {
        for (const input of inputPlans(step, way.at)) await context.input(input)
      }
      return { output: `${plan.verb} ${what}: ${describeInput(way, context.describe)}`, element: element('input') }
    }
    let done: boolean
    let how: string
    try {
      ;[done, how] = await call(() => accessibly(way, record, control))
    } catch (error) {
      if (error instanceof StaleElement) throw error
      // The application refused the call (e.g. a read-only value): the next way may work.
      declined.push(`${label(way)}: ${(error as Error).message}`)
      continue
    }
    if (done) return { output: `${plan.verb} ${what}: ${how}`, element: element('accessibility') }
    declined.push(`${label(way)} declined`)
  }
  throw new DriverFailure(`the application declined to ${plan.verb} ${what}: ${declined.join('; ')}`)
}

function label (way: Exclude<Attempt, { via: 'input' }>): string {
  switch (way.op) {
    case 'do_action': return `AT-SPI action ${JSON.stringify(way.name)}`
    case 'grab_focus': return 'Component.GrabFocus'
    case 'set_value': return 'Value.CurrentValue'
    case 'step_value': return 'Value.CurrentValue'
    case 'set_text': return 'EditableText.SetTextContents'
    case 'select': return "Selection.SelectChild on the parent"
    default: return unreachable(way, 'way')
  }
}

/** One accessibility call; answers whether the application took it, and what was done in words. */
async function accessibly (way: Exclude<Attempt, { via: 'input' }>, record: ElementRecord, control: Accessibility['elements']): Promise<[boolean, string]> {
  switch (way.op) {
    case 'do_action': return [await control.doAction(record.ref, way.index), `by its AT-SPI action ${JSON.stringify(way.name)}`]
    case 'grab_focus': return [await control.grabFocus(record.ref), 'by Component.GrabFocus']
    case 'set_value':
      await control.setValue(record.ref, way.value)
      return [true, `Value.CurrentValue set to ${way.value}`]
    case 'step_value': {
      const value = await control.value(record.ref)
      const step = value.step > 0 ? value.step : 1
      const next = Math.min(value.max, Math.max(value.min, value.current + way.sign * step))
      await control.setValue(record.ref, next)
      return [true, `Value.CurrentValue set from ${value.current} to ${next}`]
    }
    case 'set_text': return [await control.setText(record.ref, way.text), `EditableText.SetTextContents (${[...way.text].length} characters)`]
    case 'select': return [await control.select(record.ref), 'by Selection.SelectChild on its parent']
    default: return unreachable(way, 'way')
  }
}

const none = { hold: [] as [], screenshot: false as const }

export function inputPlans (step: InputStep, at: Point): InputPlan[] {
  switch (step.kind) {
    case 'click': return [{ kind: 'click_mouse', button: step.button === 'right' ? 'right' : 'left', clickType: 'click', at, count: step.count, ...none }]
    case 'long_press': return [
      { kind: 'click_mouse', button: 'left', clickType: 'down', at, count: 1, ...none },
      { kind: 'wait', durationMs: step.ms, screenshot: false },
      { kind: 'click_mouse', button: 'left', clickType: 'up', at, count: 1, ...none },
    ]
    case 'keys': return [{ kind: 'press_key', keys: resolveKeys(step.keys), pressType: 'press', screenshot: false }]
    case 'text': return [{ kind: 'type_text', text: step.text, ...none }]
    case 'wheel': return [{ kind: 'scroll', at, dx: step.dx, dy: step.dy, ...none }]
    default: return unreachable(step, 'input step')
  }
}

function describeInput (way: Extract<Attempt, { via: 'input' }>, where: (point: Point) => string): string {
  const words = way.steps.map((step) => {
    switch (step.kind) {
      case 'click': return step.count === 2 ? `${step.button} double click` : `${step.button} click`
      case 'long_press': return `long press (${step.ms} ms)`
      case 'keys': return step.keys.join(', ')
      case 'text': return `${[...step.text].length} characters typed`
      case 'wheel': return `${Math.abs(step.dx || step.dy)} wheel notches ${step.dy > 0 ? 'down' : step.dy < 0 ? 'up' : step.dx > 0 ? 'right' : 'left'}`
      default: return unreachable(step, 'input step')
    }
  })
  return `real input at ${where(way.at)}${way.focus ? ' after Component.GrabFocus' : ''}: ${words.join(', ')}`
}
