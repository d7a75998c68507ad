/**
 * Input plans above the driver: what a drag is made of, and how the held inputs follow a plan
 * sent whole (Driver.input) — on success its releases apply, on failure every press it makes
 * stays recorded, so the executor releases it. The real desktop's side is the oracle tables'.
 */
import t from 'tap'
import { FakeDriver } from '../drivers/fake/fake-driver.ts'
import type { Driver, InputStep, Point } from '../src/driver/driver.ts'
import { HeldInputs, trackedDriver } from '../src/executor/held-inputs.ts'
import { clickSteps, DRAG_SETTLE_MS, dragSteps, holdingSteps, NEXT_MS, sendInput } from '../src/executor/input-steps.ts'
import { resolveKeys } from '../src/keys/index.ts'

const [ctrl] = resolveKeys(['ctrl'])

t.test('a drag presses at the first point, moves in steps of at most 32 px with pauses around them, and releases', async (t) => {
  const steps = dragSteps([{ x: 0, y: 0 }, { x: 100, y: 0 }, { x: 100, y: 10 }])
  t.strictSame(steps.slice(0, 3), [{ kind: 'move', to: { x: 0, y: 0 } }, { kind: 'button', button: 'left', down: true }, { kind: 'pause', ms: DRAG_SETTLE_MS }])
  t.strictSame(steps.slice(-2), [{ kind: 'pause', ms: DRAG_SETTLE_MS }, { kind: 'button', button: 'left', down: false }])
  const moves = steps.slice(3, -2).map((step) => (step as { to: Point }).to)
  t.strictSame(moves, [{ x: 25, y: 0 }, { x: 50, y: 0 }, { x: 75, y: 0 }, { x: 100, y: 0 }, { x: 100, y: 10 }])
})

t.test('a double click is two press/release pairs a millisecond apart; held keys wrap a plan a millisecond apart', async (t) => {
  t.strictSame(clickSteps('left', 2), [
    { kind: 'button', button: 'left', down: true }, { kind: 'button', button: 'left', down: false }, NEXT_MS,
    { kind: 'button', button: 'left', down: true }, { kind: 'button', button: 'left', down: false },
  ])
  const wrapped = holdingSteps([ctrl!], clickSteps('left', 1))
  t.strictSame(wrapped.map((step) => step.kind), ['key', 'pause', 'button', 'button', 'pause', 'key'])
  t.strictSame(holdingSteps([], clickSteps('left', 1)), clickSteps('left', 1))
})

/** The fake driver, with a plan method that records the plan and may fail. */
function planDriver (fail: boolean): Driver & { plans: InputStep[][] } {
  const fake = new FakeDriver()
  const plans: InputStep[][] = []
  return Object.assign(Object.create(fake) as Driver, {
    plans,
    input: async (steps: readonly InputStep[]) => {
      plans.push([...steps])
      if (fail) throw new Error('the X connection closed')
      return { x: 7, y: 8 }
    },
  })
}

t.test('a plan sent whole crosses once; what it leaves pressed stays recorded, its releases apply', async (t) => {
  const driver = planDriver(false)
  const held = new HeldInputs()
  const tracked = trackedDriver(driver, held)
  t.strictSame(await sendInput(tracked, clickSteps('left', 1), undefined, [ctrl!]), { x: 7, y: 8 })
  t.equal(driver.plans.length, 1)
  t.strictSame(held.snapshot(), { keys: [], buttons: [] })
  await sendInput(tracked, [{ kind: 'button', button: 'left', down: true }])
  t.strictSame(held.snapshot(), { keys: [], buttons: ['left'] })
  await sendInput(tracked, [{ kind: 'button', button: 'left', down: false }])
  t.strictSame(held.snapshot(), { keys: [], buttons: [] })
})

t.test('a plan that fails leaves every press it makes recorded, so the executor releases them', async (t) => {
  const driver = planDriver(true)
  const held = new HeldInputs()
  const tracked = trackedDriver(driver, held)
  await t.rejects(sendInput(tracked, clickSteps('left', 1), undefined, [ctrl!]), /closed/)
  t.strictSame(held.snapshot(), { keys: ['ctrl'], buttons: ['left'] })
})

t.test('step by step (a driver without plans), an abort between steps stops the plan and releases the held keys', async (t) => {
  const fake = new FakeDriver()
  const held = new HeldInputs()
  const controller = new AbortController()
  const tracked = trackedDriver(fake, held)
  const steps: InputStep[] = [{ kind: 'button', button: 'left', down: true }, { kind: 'pause', ms: 5000 }, { kind: 'button', button: 'left', down: false }]
  const sent = sendInput(tracked, steps, controller.signal, [ctrl!])
  setTimeout(() => controller.abort(), 20)
  await t.rejects(sent, { code: 'ERR_ACTION_ABORTED' })
  t.strictSame(fake.calls, [{ call: 'keyDown', key: 'ctrl' }, { call: 'buttonDown', button: 'left' }, { call: 'keyUp', key: 'ctrl' }])
  t.strictSame(held.snapshot(), { keys: [], buttons: ['left'] })
})
