/**
 * Keys that follow a click wait until the click is a few milliseconds old. X delivers both in
 * order, but Chromium does not always handle them so: key events go straight to the focused
 * page, while a click goes through a hit test that may be asynchronous. A ctrl+a sent at once
 * after a click (Gemini's type_text_at: click, ctrl+a, Delete, type) now and then reached the
 * page before the click, whose caret then undid the selection, and the text was appended
 * instead of replacing (test/e2e-click-then-keys.test.ts records the order). A model's next
 * request comes far later than this; only keys in the same batch, or an agent's next call at
 * once, ever wait.
 */
import type { Driver, InputStep } from '../driver/driver.ts'
import { passThrough } from './pass-through.ts'
import { sleep } from './sleep.ts'

export const CLICK_TO_KEY_MS = 30

export function keysAfterClicks (driver: Driver, gapMs = CLICK_TO_KEY_MS): Driver {
  let clickedAt = -Infinity
  const clicked = () => { clickedAt = performance.now() }
  // Again until due: a timer counts from the event loop's cached clock and may end a little early.
  const settled = async () => {
    for (let left = clickedAt + gapMs - performance.now(); left > 0; left = clickedAt + gapMs - performance.now()) await sleep(left)
  }
  const hasKey = (steps: readonly InputStep[]) => steps.some((step) => step.kind === 'key')
  const hasButton = (steps: readonly InputStep[]) => steps.some((step) => step.kind === 'button')
  return passThrough(driver, {
    typeText: async (text) => { await settled(); return driver.typeText(text) },
    keyDown: async (key) => { await settled(); return driver.keyDown(key) },
    buttonDown: async (button) => { await driver.buttonDown(button); clicked() },
    buttonUp: async (button) => { await driver.buttonUp(button); clicked() },
    ...(driver.input && {
      input: (steps: readonly InputStep[]) => {
        const key = hasKey(steps)
        const button = hasButton(steps)
        // Moves and wheels alone, the most frequent plans, pass straight through.
        if (!key && !button) return driver.input!(steps)
        return (async () => {
          if (key) await settled()
          const pointer = await driver.input!(steps)
          if (button) clicked()
          return pointer
        })()
      },
    }),
  })
}
