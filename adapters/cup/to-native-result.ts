/** The outcome → CUP ActionResults (see action-result.ts). */
import type { AdapterOutcome, Translation } from '../../src/pipeline/adapter.ts'
import type { ActionResponse } from '../../src/actions/response.ts'
import type { CupActionResult, CupResult } from './action-result.ts'
import type { ElementActionName } from './action-spec.ts'
import type { CupMeta, CupStep } from './to-unified.ts'

/** The SDKs' words for each element verb done ("Clicked", "Set value to: …"). */
const DONE: Readonly<Record<ElementActionName, string>> = {
  click: 'Clicked',
  collapse: 'Collapsed',
  decrement: 'Decremented',
  dismiss: 'Dismissed',
  doubleclick: 'Double-clicked',
  expand: 'Expanded',
  focus: 'Focused',
  increment: 'Incremented',
  longpress: 'Long-pressed',
  rightclick: 'Right-clicked',
  scroll: 'Scrolled',
  select: 'Selected',
  setvalue: 'Set the value of',
  toggle: 'Toggled',
  type: 'Typed into',
}

export function toNativeResult (outcome: AdapterOutcome, translation: Translation<CupMeta>): CupResult {
  const { steps, batch } = translation.meta
  const results: CupActionResult[] = outcome.results.map((response, i) => ({ success: true, message: done(steps[i]!, response), error: null }))
  if (outcome.error) {
    const failed = outcome.failedIndex === null ? undefined : steps[outcome.failedIndex]
    results.push({ success: false, message: '', error: failure(failed, outcome.error.message) })
  }
  if (batch) return results
  // One spec answers the object execute_action returns; it always runs (or fails) one action.
  const [only] = results
  if (!only) throw new Error('a single CUP spec produced no result')
  return only
}

function done (step: CupStep, response: ActionResponse): string {
  switch (step.action) {
    case 'press_keys':
    case 'press':
      return `Pressed ${step.keys}`
    case 'wait':
      return `Waited ${step.ms}ms`
    default:
      return elementDone(step.action, response)
  }
}

/**
 * The SDK's word for the verb, the element, and how the server reached it — from the
 * action's answer, whose output reads `<verb> <element>: <how>`.
 */
function elementDone (verb: ElementActionName, response: ActionResponse): string {
  const element = response.element
  const output = response.output ?? ''
  if (!element) return output
  const what = `${element.id} (${element.role}${element.name ? ` ${JSON.stringify(element.name)}` : ''})`
  const prefix = `${verb} ${what}: `
  const how = output.startsWith(prefix) ? output.slice(prefix.length) : output
  if (element.via === 'none') return `Already ${verb === 'expand' ? 'expanded' : 'collapsed'}: ${what}`
  return `${DONE[verb]} ${what}: ${how}`
}

/** The SDK's words for a press that failed; the server's message otherwise (for an element, it names the element and what to do). */
function failure (step: CupStep | undefined, message: string): string {
  if (step?.action === 'press_keys' || step?.action === 'press') return `Failed to press keys '${step.keys}': ${message}`
  return message
}
