/**
 * A promise below the executor that never settles holds the desktop's queue no longer than
 * its deadline: the request answers 503 (the desktop cannot take an action now), the queue
 * moves on to the next request, and nothing is left waiting. The deadlines here are short so
 * that the test is quick; nothing is asserted about how long anything took.
 */
import t from 'tap'
import pino from 'pino'
import { FakeDriver } from '../drivers/fake/fake-driver.ts'
import { Executor } from '../src/executor/executor.ts'
import { SerialQueue } from '../src/executor/serial-queue.ts'
import { getEventListeners } from 'node:events'

const never = () => new Promise<never>(() => {})

t.test('a driver call that never returns answers 503 and the next request runs', async (t) => {
  const driver = new FakeDriver({ screen: { width: 100, height: 100 } })
  await driver.start()
  const executor = new Executor({ driver, log: pino({ level: 'silent' }), holdTimeoutMs: 60_000, deadlines: { callMs: 50, slotMs: 100 } })
  let hang = true
  driver.setBeforeCall((call) => (hang && call.call === 'moveMouse' ? never() : undefined))
  const stuck = executor.run([{ action: 'move_mouse', coordinates: [10, 10] }])
  const next = executor.run([{ action: 'get_cursor_position' }])
  const outcome = await stuck
  t.equal(outcome.failedIndex, 0)
  t.match(outcome.error, { statusCode: 503, code: 'ERR_DESKTOP_UNAVAILABLE', message: /did not answer moveMouse within 50 ms/ })
  t.equal((await next).failedIndex, null, 'the request behind it ran')
  hang = false
  t.equal((await executor.run([{ action: 'move_mouse', coordinates: [20, 20] }])).failedIndex, null, 'and input works')
  t.equal(executor.pending, 0)
  t.equal(executor.oldestWaitMs(), 0)
})

t.test('a slot whose task never ends is given up: its caller gets the overrun error, its signal aborts, the next task runs', async (t) => {
  const queue = new SerialQueue()
  let signal: AbortSignal | undefined
  const stuck = queue.run((slot) => { signal = slot; return never() }, { deadlineMs: 20, overrun: () => new Error('overran') })
  const next = queue.run(async () => 'next')
  t.equal(queue.pending, 2)
  t.ok(queue.oldestWaitMs() >= 0)
  await t.rejects(stuck, { message: 'overran' })
  t.equal(signal?.aborted, true, 'the task was told to stop')
  t.equal(await next, 'next')
  t.equal(queue.pending, 0)
})

t.test("the caller's signal stops its task too, before or during the slot, and is left with no listener", async (t) => {
  const queue = new SerialQueue()
  const client = new AbortController()
  let seen: AbortSignal | undefined
  const running = queue.run((slot) => {
    seen = slot
    return new Promise((_resolve, reject) => slot.addEventListener('abort', () => reject(slot.reason)))
  }, { signal: client.signal, deadlineMs: 10_000 })
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(seen?.aborted, false)
  client.abort(new Error('client gone'))
  await t.rejects(running, { message: 'client gone' }, 'the task heard the reason')
  t.equal(getEventListeners(client.signal, 'abort').length, 0, 'no listener left on the aborted signal')

  const gone = AbortSignal.abort(new Error('gone before'))
  t.equal(await queue.run(async (slot) => slot.aborted, { signal: gone }), true, 'a signal aborted before the slot aborts it at once')

  const kept = new AbortController()
  t.equal(await queue.run(async (slot) => slot.aborted, { signal: kept.signal, deadlineMs: 1000 }), false)
  t.equal(await queue.run(async (slot) => slot.aborted, { signal: kept.signal }), false)
  t.equal(getEventListeners(kept.signal, 'abort').length, 0, 'a finished slot removes its listener, with or without a deadline')
})
