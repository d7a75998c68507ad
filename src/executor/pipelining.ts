/**
 * Pipelining: a request of only moves, clicks, drags and scrolls hands all its input to a
 * driver that keeps input in order, and the queue's next such request may send its own as
 * soon as the last of it is handed over, while this one's answers are still on their way.
 */
import type { Driver } from '../driver/driver.ts'
import { passThrough } from './pass-through.ts'
import type { Plan } from './plan.ts'
import { runPlan, type RunContext, type RunOutcome } from './run.ts'

/**
 * Plans that are one input() call pressing no key. A request of only these (no screenshot, no
 * hold_keys) is pipelined when the driver keeps input in order: the next such request's input
 * goes out while this one's answer is on its way back. Keys wait for the clicks before them to
 * finish (keys-after-clicks.ts), and whatever reads the screen, the pointer or the keymap waits
 * for everything before it, so neither is pipelined.
 */
const PIPELINABLE = new Set<Plan['kind']>(['move_mouse', 'click_mouse', 'drag_mouse', 'scroll'])

/** Whether this batch is pipelined: the driver keeps input in order, and nothing in it reads the screen or holds keys. */
export function pipelines (driver: Driver, plans: Plan[], options: { screenshot?: boolean, settle?: unknown }): boolean {
  if (!driver.inputInOrder || !driver.input || options.screenshot || options.settle) return false
  return plans.every((plan) => PIPELINABLE.has(plan.kind) && !plan.screenshot && 'hold' in plan && plan.hold.length === 0)
}

/** The running pipelined request's release, called once its last input is handed to the driver. */
export class Handover {
  #onHandedOver?: () => void

  /** `driver` telling the running pipelined request when its input has been handed over. */
  driver (driver: Driver): Driver {
    if (!driver.input || !driver.inputInOrder) return driver
    return passThrough(driver, {
      input: (steps) => {
        const answer = driver.input!(steps)
        // The driver has the input, in order: the next pipelined request may send its own.
        const release = this.#onHandedOver
        this.#onHandedOver = undefined
        release?.()
        return answer
      },
    })
  }

  /** Runs every plan at once, in order; the queue's next request may go once the last is handed over. */
  handAllOver (plans: Plan[], context: RunContext, release: () => void): Array<Promise<RunOutcome>> {
    return plans.map((plan, index) => {
      if (index === plans.length - 1) this.#onHandedOver = release
      const outcome = runPlan(plan, context)
      // Read in order by the caller, which stops at the first failure: the rest are not unhandled.
      outcome.catch(() => {})
      return outcome
    })
  }

  /** Never handed over (the request failed first): the queue starts the next request when this one ends. */
  forget (release: () => void): void {
    if (this.#onHandedOver === release) this.#onHandedOver = undefined
  }
}
