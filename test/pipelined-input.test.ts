/**
 * Pipelined input: with a driver that keeps input in order, the next request's clicks and
 * moves are handed over while the previous one's answer is on its way back, and nothing else
 * overlaps: keys wait for the clicks before them, a screenshot or a pointer read waits for
 * every input before it, and a driver that does not keep order gets one request at a time.
 */
import t from 'tap'
import pino from 'pino'
import { FakeDriver } from '../drivers/fake/fake-driver.ts'
import type { InputStep, Point } from '../src/driver/driver.ts'
import { Executor } from '../src/executor/executor.ts'
import { SerialQueue } from '../src/executor/serial-queue.ts'
import { DesktopUnavailable } from '../src/errors/errors.ts'
import type { UnifiedAction } from '../src/actions/index.ts'

const turn = () => new Promise((resolve) => setImmediate(resolve))

/** A fake whose input() plans are held until the test answers them, in the order they came. */
class HeldAnswers extends FakeDriver {
  readonly inputInOrder: boolean
  readonly handed: string[] = []
  readonly #answers: Array<{ name: string, answer: () => void, fail: (error: Error) => void }> = []

  constructor (inOrder: boolean) {
    super({ screen: { width: 100, height: 100 } })
    this.inputInOrder = inOrder
  }

  input (steps: readonly InputStep[]): Promise<Point> {
    const name = steps.map((step) => step.kind === 'move' ? `move ${step.to.x},${step.to.y}` : step.kind === 'button' ? `button ${step.down ? 'down' : 'up'}` : step.kind).join(' ')
    this.handed.push(name)
    const last = [...steps].reverse().find((step) => step.kind === 'move')
    return new Promise((resolve, reject) => {
      this.#answers.push({ name, answer: () => resolve(last?.kind === 'move' ? last.to : { x: 0, y: 0 }), fail: reject })
    })
  }

  /** Fails the oldest plan still waiting. */
  fail (error: Error): void {
    const next = this.#answers.shift()
    if (!next) throw new Error('no plan is waiting for its answer')
    next.fail(error)
  }

  /** Answers the oldest plan still waiting, and says which it was. */
  answer (): string {
    const next = this.#answers.shift()
    if (!next) throw new Error('no plan is waiting for its answer')
    next.answer()
    return next.name
  }

  get waiting (): number { return this.#answers.length }
}

async function setup (inOrder = true) {
  const driver = new HeldAnswers(inOrder)
  await driver.start()
  const executor = new Executor({ driver, log: pino({ level: 'silent' }), holdTimeoutMs: 60_000 })
  const run = (actions: UnifiedAction[], options = {}) => executor.run(actions, options)
  return { driver, executor, run }
}

const move = (x: number, y: number): UnifiedAction => ({ action: 'move_mouse', coordinates: [x, y] })

t.test('SerialQueue: a pipelined task starts once the one before released, a plain one once all finished', async (t) => {
  const queue = new SerialQueue()
  const log: string[] = []
  const finish: Record<string, () => void> = {}
  const task = (name: string, releases: boolean) => (_signal: AbortSignal, release: () => void) => {
    log.push(`start ${name}`)
    if (releases) release()
    return new Promise<string>((resolve) => { finish[name] = () => { log.push(`end ${name}`); resolve(name) } })
  }
  const a = queue.run(task('a', true), { pipelined: true })
  const b = queue.run(task('b', true), { pipelined: true })
  const c = queue.run(task('c', false), { pipelined: true })
  const d = queue.run(task('d', true), { pipelined: true })
  const plain = queue.run(task('plain', false))
  const e = queue.run(task('e', true), { pipelined: true })
  await turn()
  t.strictSame(log, ['start a', 'start b', 'start c'], 'b starts on a\'s release; d waits: c did not release')
  t.equal(queue.pending, 6)
  finish.c!()
  await c
  await turn()
  t.strictSame(log.slice(3), ['end c', 'start d'], 'd starts once c finished, though a and b have not')
  finish.d!()
  finish.b!()
  await turn()
  t.notOk(log.includes('start plain'), 'a plain task waits for every task before it')
  finish.a!()
  await Promise.all([a, b, d])
  await turn()
  t.strictSame(log.slice(5), ['end d', 'end b', 'end a', 'start plain'])
  await turn()
  t.notOk(log.includes('start e'), 'the pipelined task after a plain one waits for it to finish')
  finish.plain!()
  await plain
  await turn()
  t.equal(log.at(-1), 'start e')
  finish.e!()
  t.equal(await e, 'e')
  t.equal(queue.pending, 0)
})

t.test('moves and clicks of the next requests are handed over before the first one answered, each with its own answer', async (t) => {
  const { driver, run } = await setup()
  const first = run([move(10, 10)])
  const second = run([{ action: 'click_mouse', button: 'left', coordinates: [20, 20] }])
  const third = run([move(30, 30), move(40, 40)])
  await turn()
  t.strictSame(driver.handed, ['move 10,10', 'move 20,20 button down button up', 'move 30,30', 'move 40,40'],
    'every plan out, in order, none answered: a batch of them too')
  t.equal(driver.answer(), 'move 10,10')
  t.equal(driver.answer(), 'move 20,20 button down button up')
  t.equal(driver.answer(), 'move 30,30')
  t.equal(driver.answer(), 'move 40,40')
  t.strictSame((await first).results.map((r) => r.cursor_position), [[10, 10]])
  t.strictSame((await second).results.map((r) => [r.output, r.cursor_position]), [['clicked left at (20, 20)', [20, 20]]])
  t.strictSame((await third).results.map((r) => r.cursor_position), [[30, 30], [40, 40]])
})

t.test('what reads the desktop, keys and held keys wait for every input before them', async (t) => {
  const cases: Array<{ name: string, actions: UnifiedAction[], options?: object, handed?: string, call?: string }> = [
    { name: 'a screenshot', actions: [{ action: 'take_screenshot' }], call: 'screenshot' },
    { name: 'a pointer read', actions: [{ action: 'get_cursor_position' }] },
    { name: 'a key combo (keys after a click wait for it)', actions: [{ action: 'press_key', keys: ['ctrl', 'a'] }], handed: 'key key key key' },
    { name: 'a move holding shift', actions: [{ action: 'move_mouse', coordinates: [5, 5], hold_keys: ['shift'] }], handed: 'key pause move 5,5 pause key' },
    { name: 'a move asking for a screenshot', actions: [move(6, 6)], options: { screenshot: true }, handed: 'move 6,6' },
    { name: 'a move with a screenshot of its own', actions: [{ action: 'move_mouse', coordinates: [7, 7], screenshot: true }], handed: 'move 7,7' },
    { name: 'a batch with a key in it', actions: [move(8, 8), { action: 'press_key', keys: ['a'] }], handed: 'move 8,8' },
  ]
  for (const { name, actions, options, handed, call } of cases) {
    t.test(name, async (t) => {
      const { driver, run } = await setup()
      const click = run([{ action: 'click_mouse', button: 'left', coordinates: [1, 1] }])
      const next = run(actions, options)
      await turn()
      t.strictSame(driver.handed, ['move 1,1 button down button up'], 'nothing of the next request reached the driver')
      t.strictSame(driver.calls, [])
      driver.answer()
      await click
      // A key after a click waits for the click to be a few milliseconds old, then goes out.
      for (let i = 0; i < 50 && driver.handed.length === 1 && !driver.calls.length; i++) await new Promise((resolve) => setTimeout(resolve, 5))
      if (handed) t.equal(driver.handed[1], handed, 'then it did')
      if (call) t.match(driver.calls, [{ call }], 'then it did')
      let settled = false
      void next.finally(() => { settled = true })
      // Its later plans (a key after its own move waits too) are answered as they come.
      while (!settled) {
        if (driver.waiting) driver.answer()
        await new Promise((resolve) => setTimeout(resolve, 1))
      }
      t.equal((await next).failedIndex, null)
    })
  }
})

t.test('a pipelined batch whose plan fails answers up to it, as any batch does', async (t) => {
  const { driver, run } = await setup()
  const batch = run([move(1, 1), move(2, 2), move(3, 3)])
  const next = run([move(4, 4)])
  await turn()
  t.strictSame(driver.handed, ['move 1,1', 'move 2,2', 'move 3,3', 'move 4,4'])
  driver.answer()
  driver.fail(new DesktopUnavailable('the desktop went away'))
  driver.fail(new DesktopUnavailable('the desktop went away'))
  driver.answer()
  const outcome = await batch
  t.equal(outcome.failedIndex, 1)
  t.strictSame(outcome.results.map((r) => r.cursor_position), [[1, 1]])
  t.match(outcome.error, { statusCode: 503, message: 'the desktop went away' })
  t.equal((await next).failedIndex, null, 'the request after it is its own')
})

t.test('a driver that does not keep input in order gets one request at a time', async (t) => {
  const { driver, run } = await setup(false)
  const first = run([move(10, 10)])
  const second = run([move(20, 20)])
  await turn()
  t.strictSame(driver.handed, ['move 10,10'])
  driver.answer()
  await first
  await turn()
  t.strictSame(driver.handed, ['move 10,10', 'move 20,20'])
  driver.answer()
  t.equal((await second).failedIndex, null)
})

t.test('a pipelined request that fails before its input is handed over lets the next one go when it ends', async (t) => {
  const { driver, run } = await setup()
  const gone = new AbortController()
  gone.abort(new Error('client gone'))
  const first = run([move(10, 10)])
  const aborted = run([move(20, 20)], { signal: gone.signal })
  const third = run([move(30, 30)])
  await turn()
  t.strictSame(driver.handed, ['move 10,10', 'move 30,30'], 'the aborted request sent nothing, the one after it went on')
  t.match((await aborted).error, { statusCode: 499, code: 'ERR_ACTION_ABORTED' })
  driver.answer()
  driver.answer()
  t.equal((await first).failedIndex, null)
  t.equal((await third).failedIndex, null)
})
