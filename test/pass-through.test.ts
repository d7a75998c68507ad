/**
 * The executor's driver wrappers pass every member they do not change through to the driver
 * below: each call with its arguments and its answer, optional members only where the driver
 * has them, `windows` read live, and an override in place of the member it names.
 */
import t from 'tap'
import type { Driver, InputStep } from '../src/driver/driver.ts'
import { passThrough } from '../src/executor/pass-through.ts'

const key = { name: 'a', keysym: 'a', modifier: false }

function recordingDriver (optional: boolean) {
  const calls: Array<[string, unknown[]]> = []
  const answer = (member: string) => (...args: unknown[]) => { calls.push([member, args]); return Promise.resolve(`${member} answered`) }
  let windows: unknown = { first: true }
  const driver = {
    name: 'recording',
    start: answer('start'),
    close: answer('close'),
    ready: () => { calls.push(['ready', []]); return true },
    get windows () { return windows },
    screenSize: answer('screenSize'),
    moveMouse: answer('moveMouse'),
    cursorPosition: answer('cursorPosition'),
    buttonDown: answer('buttonDown'),
    buttonUp: answer('buttonUp'),
    wheel: answer('wheel'),
    keyDown: answer('keyDown'),
    keyUp: answer('keyUp'),
    typeText: answer('typeText'),
    screenshot: answer('screenshot'),
    ...(optional && { inputInOrder: true, input: answer('input'), settle: answer('settle'), onReplaced: (listener: () => void) => { calls.push(['onReplaced', [listener]]) } }),
  } as unknown as Driver
  return { driver, calls, setWindows: (value: unknown) => { windows = value } }
}

t.test('every member passes through with its arguments and its answer', async (t) => {
  const { driver, calls, setWindows } = recordingDriver(true)
  const wrapped = passThrough(driver, {})
  const steps: InputStep[] = [{ kind: 'pause', ms: 1 }]
  const listener = () => {}
  const cases: Array<[string, () => unknown, unknown[]]> = [
    ['start', () => wrapped.start(), []],
    ['close', () => wrapped.close(), []],
    ['screenSize', () => wrapped.screenSize(), []],
    ['moveMouse', () => wrapped.moveMouse({ x: 1, y: 2 }), [{ x: 1, y: 2 }]],
    ['cursorPosition', () => wrapped.cursorPosition(), []],
    ['buttonDown', () => wrapped.buttonDown('left'), ['left']],
    ['buttonUp', () => wrapped.buttonUp('right'), ['right']],
    ['wheel', () => wrapped.wheel(1, -2), [1, -2]],
    ['keyDown', () => wrapped.keyDown(key), [key]],
    ['keyUp', () => wrapped.keyUp(key), [key]],
    ['typeText', () => wrapped.typeText('hé'), ['hé']],
    ['screenshot', () => wrapped.screenshot({ x: 0, y: 0, width: 5, height: 5 }), [{ x: 0, y: 0, width: 5, height: 5 }]],
    ['input', () => wrapped.input!(steps), [steps]],
    ['settle', () => wrapped.settle!({ quietMs: 10, maxMs: 20 }), [{ quietMs: 10, maxMs: 20 }]],
  ]
  for (const [member, call, args] of cases) {
    calls.length = 0
    t.equal(await call(), `${member} answered`, member)
    t.strictSame(calls, [[member, args]], `${member}'s arguments`)
  }
  calls.length = 0
  wrapped.onReplaced!(listener)
  t.strictSame(calls, [['onReplaced', [listener]]])
  t.equal(wrapped.ready(), true)
  t.equal(wrapped.name, 'recording')
  t.equal(wrapped.inputInOrder, true, 'a driver that keeps input in order stays one to the wrappers above')
  t.strictSame(wrapped.windows, { first: true })
  setWindows({ second: true })
  t.strictSame(wrapped.windows, { second: true }, 'windows is read when asked, not copied')
})

t.test('optional members exist only where the driver has them; overrides replace their member', async (t) => {
  const { driver, calls } = recordingDriver(false)
  const wrapped = passThrough(driver, { keyDown: async () => { calls.push(['override', []]) } })
  t.equal(wrapped.input, undefined)
  t.equal(wrapped.inputInOrder, undefined)
  t.equal(wrapped.settle, undefined)
  t.equal(wrapped.onReplaced, undefined)
  await wrapped.keyDown(key)
  t.strictSame(calls, [['override', []]], 'the override ran, not the driver\'s keyDown')
})
