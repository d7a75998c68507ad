/**
 * Keys after a click wait until the click is CLICK_TO_KEY_MS old (src/executor/keys-after-clicks.ts):
 * through the executor over the fake driver (primitives), and on a driver that takes plans.
 * Why, on a real Chromium, is test/e2e-click-then-keys.test.ts.
 */
import t from 'tap'
import type { Driver, InputStep } from '../src/driver/driver.ts'
import { CLICK_TO_KEY_MS, keysAfterClicks } from '../src/executor/keys-after-clicks.ts'
import { parseCombo } from '../src/keys/index.ts'
import { FakeDriver } from '../drivers/fake/fake-driver.ts'
import { build, post } from './helpers/build.ts'

// Timers fire no earlier than asked, but performance.now() and the timer clock round apart.
const AT_LEAST = CLICK_TO_KEY_MS - 1

t.test('a batch: click, then ctrl+a and typing, which wait for the click to be CLICK_TO_KEY_MS old', async (t) => {
  const at: Array<[string, number]> = []
  const { app, driver } = await build(t, { fake: { beforeCall: (call) => { at.push([call.call, performance.now()]) } } })
  const response = await post(app, '/computer/batch', {
    actions: [
      { action: 'click_mouse', coordinates: [100, 100], button: 'left' },
      { action: 'press_key', keys: ['ctrl', 'a'] },
      { action: 'type_text', text: 'x' },
    ],
  })
  t.equal(response.status, 200)
  t.strictSame(driver.calls.map((call) => call.call), ['moveMouse', 'buttonDown', 'buttonUp', 'keyDown', 'keyDown', 'keyUp', 'keyUp', 'typeText'])
  const up = at.find(([call]) => call === 'buttonUp')![1]
  const firstKey = at.find(([call]) => call === 'keyDown')![1]
  t.ok(firstKey - up >= AT_LEAST, `the first key ${(firstKey - up).toFixed(1)} ms after the release`)
})

t.test('on a driver that takes plans: a plan with keys waits after a plan with a button; others do not wait', async (t) => {
  const plans: Array<{ kinds: string[], at: number }> = []
  const driver: Driver = new (class extends FakeDriver {
    async input (steps: readonly InputStep[]) {
      plans.push({ kinds: steps.map((step) => step.kind), at: performance.now() })
      return { x: 0, y: 0 }
    }
  })()
  const [ctrl, a] = parseCombo('ctrl+a')
  const key = (down: boolean): InputStep => ({ kind: 'key', key: a!, down })
  const click: InputStep[] = [{ kind: 'button', button: 'left', down: true }, { kind: 'button', button: 'left', down: false }]
  const combo: InputStep[] = [{ kind: 'key', key: ctrl!, down: true }, key(true), key(false), { kind: 'key', key: ctrl!, down: false }]

  const gapped = keysAfterClicks(driver)
  await gapped.input!(click)
  await gapped.input!(combo)
  t.strictSame(plans.map((plan) => plan.kinds), [['button', 'button'], ['key', 'key', 'key', 'key']])
  t.ok(plans[1]!.at - plans[0]!.at >= AT_LEAST, `keys ${(plans[1]!.at - plans[0]!.at).toFixed(1)} ms after the click`)

  // What must not wait, with a gap of a minute: had it waited, the test would time out.
  const slow = keysAfterClicks(driver, 60_000)
  const started = performance.now()
  await slow.input!([key(true), key(false)]) // no click before it
  await slow.input!(click)
  await slow.input!([{ kind: 'move', to: { x: 5, y: 5 } }]) // a move
  await slow.keyUp(ctrl!) // a release: a key held across a click must come up when asked
  await slow.buttonDown('left')
  await slow.wheel(0, 1)
  t.ok(performance.now() - started < 30_000, 'keys before any click, moves, releases, buttons and wheels do not wait')
  t.equal(plans.length, 5)
})
