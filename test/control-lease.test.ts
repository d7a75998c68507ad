/**
 * The control lease alone (src/control/lease.ts): takeover, renewal, conflicts, release without
 * a lease, the timeout, the release hooks run before a waiting request_human is answered, and
 * request_human's own timeout and abort.
 */
import t from 'tap'
import pino from 'pino'
import { ControlLease, type ControlEvent } from '../src/control/lease.ts'

const log = pino({ level: 'silent' })

function lease (now = () => Date.parse('2026-01-02T03:04:05.000Z')) {
  const control = new ControlLease({ log, now })
  const events: ControlEvent[] = []
  const order: string[] = []
  control.onEvent((event) => { events.push(event); order.push(`event:${event.type}`) })
  control.onReleasing(async () => { order.push('released held input') })
  return { control, events, order }
}

interface Step { call: (control: ControlLease) => unknown, answer?: unknown, error?: { code: string, statusCode: number, message: string } }

const cases: Array<{ name: string, steps: Step[] }> = [
  {
    name: 'takeover gives the lease; the same holder again renews it',
    steps: [
      { call: (c) => c.takeover({ holder: 'alice', timeoutS: 60 }), answer: { holder: 'alice', since: '2026-01-02T03:04:05.000Z', expires_at: '2026-01-02T03:05:05.000Z', via: 'api' } },
      { call: (c) => c.takeover({ holder: 'alice', timeoutS: 120 }), answer: { holder: 'alice', since: '2026-01-02T03:04:05.000Z', expires_at: '2026-01-02T03:06:05.000Z', via: 'api' } },
    ],
  },
  {
    name: 'another holder is refused with 409 naming who holds it',
    steps: [
      { call: (c) => c.takeover({}), answer: { holder: 'operator', since: '2026-01-02T03:04:05.000Z', expires_at: '2026-01-02T03:14:05.000Z', via: 'api' } },
      { call: (c) => c.takeover({ holder: 'bob' }), error: { code: 'ERR_CONTROL_CONFLICT', statusCode: 409, message: 'the desktop is already taken over by "operator" since 2026-01-02T03:04:05.000Z; they hand it back with POST /control/release (or the live view\'s "Hand back")' } },
      { call: (c) => c.takeover({ holder: 'operator', owner: 'tab-0001' }), error: { code: 'ERR_CONTROL_CONFLICT', statusCode: 409, message: 'the desktop is already taken over by "operator" since 2026-01-02T03:04:05.000Z; they hand it back with POST /control/release (or the live view\'s "Hand back")' } },
    ],
  },
  {
    name: 'a release without a lease is a 409',
    steps: [
      { call: (c) => c.release({}), error: { code: 'ERR_CONTROL_CONFLICT', statusCode: 409, message: 'nobody holds the desktop: there is no lease to release (GET /control)' } },
    ],
  },
  {
    name: 'a live view tab releases only its own lease',
    steps: [
      { call: (c) => c.takeover({ holder: 'live view', owner: 'tab-0001' }), answer: { holder: 'live view', since: '2026-01-02T03:04:05.000Z', expires_at: '2026-01-02T03:14:05.000Z', via: 'live' } },
      { call: (c) => c.release({ owner: 'tab-0002' }), error: { code: 'ERR_CONTROL_CONFLICT', statusCode: 409, message: 'this live view does not hold the desktop: "live view" does, since 2026-01-02T03:04:05.000Z' } },
      { call: (c) => c.release({ owner: 'tab-0001', message: 'done' }), answer: { released: { holder: 'live view', since: '2026-01-02T03:04:05.000Z', expires_at: '2026-01-02T03:14:05.000Z', via: 'live' }, held_ms: 0, answered: 0 } },
    ],
  },
  {
    name: 'the agent may act without a lease, and is refused with 423 under one',
    steps: [
      { call: (c) => c.assertAgentMayAct(), answer: undefined },
      { call: (c) => c.takeover({ holder: 'alice', timeoutS: 5 }), answer: { holder: 'alice', since: '2026-01-02T03:04:05.000Z', expires_at: '2026-01-02T03:04:10.000Z', via: 'api' } },
      {
        call: (c) => c.assertAgentMayAct(),
        error: { code: 'ERR_DESKTOP_TAKEN_OVER', statusCode: 423, message: 'the desktop is taken over by "alice" since 2026-01-02T03:04:05.000Z: nothing of this request ran. Reads (screenshots, the accessibility tree, windows, the cursor) still answer; act again once they hand it back (GET /control), at the latest 2026-01-02T03:04:10.000Z' },
      },
    ],
  },
]

for (const { name, steps } of cases) {
  t.test(name, async (t) => {
    const { control } = lease()
    t.teardown(() => control.close())
    for (const [index, step] of steps.entries()) {
      try {
        const answer = await step.call(control)
        t.notOk(step.error, `step ${index} answered where it should have failed`)
        t.strictSame(answer, step.answer, `step ${index}`)
      } catch (error) {
        t.ok(step.error, `step ${index} failed: ${(error as Error).message}`)
        const { code, statusCode, message } = error as { code: string, statusCode: number, message: string }
        t.strictSame({ code, statusCode, message }, step.error, `step ${index}`)
      }
    }
  })
}

t.test('the 423 carries Retry-After: the lease\'s time left, at most 10 s', async (t) => {
  let now = 1_000_000
  const { control } = lease(() => now)
  t.teardown(() => control.close())
  control.takeover({ timeoutS: 600 })
  t.equal((() => { try { control.assertAgentMayAct() } catch (error) { return (error as { retryAfterSeconds: number }).retryAfterSeconds } })(), 10)
  now += 597_500
  t.equal((() => { try { control.assertAgentMayAct() } catch (error) { return (error as { retryAfterSeconds: number }).retryAfterSeconds } })(), 3)
})

t.test('a release lets go of held input first, then answers request_human with the message, who and how long', async (t) => {
  let now = 5_000
  const { control, order, events } = lease(() => now)
  const waiting = control.waitForHuman('please log in', 60)
  t.strictSame(control.requests, [{ message: 'please log in', since: new Date(5000).toISOString(), until: new Date(65_000).toISOString() }])
  now = 6_000
  t.equal(control.oldestRequestMs(), 1000)
  control.takeover({ holder: 'alice' })
  now = 9_500
  const released = await control.release({ message: 'logged in' })
  t.strictSame(released, { released: { holder: 'alice', since: new Date(6000).toISOString(), expires_at: new Date(606_000).toISOString(), via: 'api' }, held_ms: 3500, answered: 1 })
  t.strictSame(await waiting, { outcome: 'released', message: 'logged in', holder: 'alice', held_ms: 3500, waited_ms: 4500 })
  t.strictSame(order, ['event:request', 'event:takeover', 'released held input', 'event:release'])
  t.match(events[2], { type: 'release', reason: 'released', held_ms: 3500, message: 'logged in' })
  t.strictSame(control.requests, [])
  t.equal(control.lease, null)
})

t.test('the lease ends by itself at its timeout, releasing held input', async (t) => {
  const { control, order } = lease(Date.now)
  control.takeover({ holder: 'alice', timeoutS: 1 })
  const started = Date.now()
  const answer = await control.waitForHuman('anyone?', 5)
  t.equal(answer.outcome, 'released')
  t.equal(answer.holder, 'alice')
  t.ok(Date.now() - started >= 900 && Date.now() - started < 4000, `ended after about 1 s (${Date.now() - started} ms)`)
  t.strictSame(order, ['event:takeover', 'event:request', 'released held input', 'event:release'])
  t.equal(control.lease, null)
})

t.test('request_human without anybody coming times out with a clear answer; an abort rejects', async (t) => {
  const { control } = lease(Date.now)
  const answer = await control.waitForHuman('anyone?', 1)
  t.equal(answer.outcome, 'timed_out')
  t.strictSame({ ...answer, waited_ms: 0 }, { outcome: 'timed_out', message: null, holder: null, held_ms: null, waited_ms: 0 })
  t.ok(answer.waited_ms >= 900, `waited about 1 s (${answer.waited_ms} ms)`)
  const abort = new AbortController()
  const waiting = control.waitForHuman('anyone?', 60, abort.signal)
  abort.abort(new Error('the client went away'))
  await t.rejects(waiting, { message: 'the client went away' })
  t.strictSame(control.requests, [], 'nothing is left waiting')
})
