/**
 * The oracle table: actions sent through the HTTP API to a real driver on a real Xvfb, each
 * checked by what Chromium received (test/helpers/oracle.ts) or, for screenshots, against
 * what the page draws at known places (test/fixtures/oracle/page.html). One test file per
 * driver runs it (tap runs them in parallel). A row a driver cannot do names that driver in
 * `cannot` with the whole error body it must answer; it is never skipped.
 */
import pino from 'pino'
import sharp from 'sharp'
import type tap from 'tap'
import { buildApp } from '../../src/app.ts'
import type { Driver } from '../../src/driver.ts'
import { NutDriver } from '../../drivers/nut/nut-driver.ts'
import { XdotoolDriver } from '../../drivers/xdotool/xdotool-driver.ts'
import { heldOnX, startDesktop } from './desktop.ts'
import { startOracle, type OracleEvent } from './oracle.ts'

export type OracleDriver = 'nut' | 'xdotool'

/** A tap test (the type of a subtest's `t`). */
type Tap = Parameters<Parameters<typeof tap.test>[0]>[0]

interface Answer { status: number, body: Record<string, unknown> }

export interface OracleContext {
  display: string
  oracle: Awaited<ReturnType<typeof startOracle>>
  /** POSTs one action to /computer (with a query string, if any). */
  post: (body: unknown, query?: string) => Promise<Answer>
  /** Like post, and asserts a 200. */
  act: (body: unknown, query?: string) => Promise<Answer>
}

export interface OracleRow {
  name: string
  /**
   * Drivers that cannot do this row: the request each is sent instead, and the whole error
   * body it must answer with. Nothing may stay held afterwards.
   */
  cannot?: Partial<Record<OracleDriver, { request: unknown, status: number, body: Record<string, unknown> }>>
  run: (t: Tap, context: OracleContext) => Promise<void>
}

const DRIVERS: Record<OracleDriver, new (options: { display: string }) => Driver> = { nut: NutDriver, xdotool: XdotoolDriver }

const of = (events: OracleEvent[], ...types: string[]) => events.filter((e) => types.includes(e.type))
const has = (type: string, count = 1) => (events: OracleEvent[]) => of(events, type).length >= count
const sum = (events: OracleEvent[], field: 'dx' | 'dy') => events.reduce((s, e) => s + (e[field] as number), 0)
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** Chromium's multi-click interval is 500 ms: wait it out so the next click counts from 1. */
const pastMultiClick = () => pause(600)

/** Decodes a base64 PNG into RGB pixels. */
async function decode (base64: string) {
  const { data, info } = await sharp(Buffer.from(base64, 'base64')).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  return { width: info.width, height: info.height, at: (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)] }
}

// What page.html draws: white page, the red #target at 900,100 (100x60), the green #pad from y 240.
const WHITE = [255, 255, 255]
const RED = [255, 0, 0]
const PAD = [0xe0, 0xff, 0xe0]

export const ORACLE_ROWS: OracleRow[] = [
  {
    name: 'clicks of every button land where asked',
    async run (t, { act, oracle }) {
      const buttons: Array<[string, number]> = [['left', 0], ['middle', 1], ['right', 2], ['back', 3], ['forward', 4]]
      for (const [button, dom] of buttons) {
        oracle.clear()
        await act({ action: 'click_mouse', button, coordinates: [400 + dom * 10, 500] })
        const events = await oracle.until(has('mouseup'))
        t.match(of(events, 'mousedown')[0], { button: dom, x: 400 + dom * 10, y: 500 }, `${button} mousedown`)
        t.match(of(events, 'mouseup')[0], { button: dom, x: 400 + dom * 10, y: 500 }, `${button} mouseup`)
      }
      // End with a plain click (and wait for it to be recorded), so the next row starts clean.
      oracle.clear()
      await act({ action: 'click_mouse', button: 'left', coordinates: [640, 700] })
      await oracle.until(has('click'))
      await pastMultiClick()
    },
  },
  {
    name: 'num_clicks 2 is a dblclick; 3 is a triple click',
    async run (t, { act, oracle }) {
      oracle.clear()
      await act({ action: 'click_mouse', button: 'left', coordinates: [300, 600], num_clicks: 2 })
      let events = await oracle.until(has('dblclick'))
      t.equal(of(events, 'dblclick').length, 1, 'one dblclick')
      t.strictSame(of(events, 'click').map((e) => e.detail), [1, 2])
      await pastMultiClick()
      oracle.clear()
      await act({ action: 'click_mouse', button: 'left', coordinates: [320, 620], num_clicks: 3 })
      events = await oracle.until(has('click', 3))
      t.strictSame(of(events, 'click').map((e) => e.detail), [1, 2, 3])
      await pastMultiClick()
    },
  },
  {
    name: 'hold_keys arrive as modifiers',
    async run (t, { act, oracle }) {
      oracle.clear()
      await act({ action: 'click_mouse', button: 'left', coordinates: [500, 650], hold_keys: ['shift'] })
      const events = await oracle.until(has('click'))
      t.match(of(events, 'click')[0], { shift: true, ctrl: false })
      t.match(of(events, 'keyup').at(-1), { key: 'Shift' }, 'and shift comes up after')
      await pastMultiClick()
    },
  },
  {
    name: 'wheel directions and notch counts',
    async run (t, { act, oracle }) {
      const cases: Array<[number, number, number, number]> = [[0, 3, 0, 360], [0, -2, 0, -240], [2, 0, 240, 0], [-1, 0, -120, 0]]
      for (const [dx, dy, sumX, sumY] of cases) {
        oracle.clear()
        await act({ action: 'scroll', coordinates: [640, 500], delta_x: dx, delta_y: dy })
        const events = await oracle.until((e) => {
          const wheels = of(e, 'wheel')
          return wheels.length > 0 && Math.abs(sum(wheels, 'dx')) >= Math.abs(sumX) && Math.abs(sum(wheels, 'dy')) >= Math.abs(sumY)
        })
        t.equal(sum(of(events, 'wheel'), 'dx'), sumX, `delta_x ${dx}`)
        t.equal(sum(of(events, 'wheel'), 'dy'), sumY, `delta_y ${dy}`)
      }
    },
  },
  {
    name: 'scroll with hold_keys: the wheel events carry the modifier',
    async run (t, { act, oracle }) {
      oracle.clear()
      await act({ action: 'scroll', coordinates: [640, 500], delta_y: 2, hold_keys: ['shift'] })
      let events = await oracle.until((e) => of(e, 'wheel').length >= 2 && has('keyup')(e))
      const shifted = of(events, 'wheel')
      t.ok(shifted.every((w) => w.shift === true && w.ctrl === false), 'every wheel event with shiftKey')
      // Chromium turns a shifted vertical wheel into a horizontal scroll on X11.
      t.equal(Math.abs(sum(shifted, 'dx')) + Math.abs(sum(shifted, 'dy')), 240, 'two notches')
      t.match(of(events, 'keyup').at(-1), { key: 'Shift' }, 'and shift comes up after')

      oracle.clear()
      await act({ action: 'scroll', coordinates: [640, 500], delta_y: -1, hold_keys: ['ctrl'] })
      events = await oracle.until((e) => of(e, 'wheel').length >= 1 && has('keyup')(e))
      // (Chromium reports a zooming wheel's delta in the new zoom's pixels: not 120.)
      t.match(of(events, 'wheel'), [{ ctrl: true, shift: false, dx: 0 }], 'one wheel event with ctrlKey')
      t.ok((of(events, 'wheel')[0]!.dy as number) < 0, 'upwards')
      t.match(of(events, 'keyup').at(-1), { key: 'Control' })
      // Ctrl+wheel zooms the page; put it back as it was.
      oracle.clear()
      await act({ action: 'press_key', keys: ['ctrl', '0'] })
      await oracle.until(has('keyup', 2))
      await pause(300)
    },
  },
  {
    name: 'typing and key combos in a textarea',
    async run (t, { act, oracle }) {
      await act({ action: 'click_mouse', button: 'left', coordinates: [300, 100] })
      oracle.clear()
      const text = 'Hello, World! ~`@#$%^&*()_+{}|:"<>? -=[]\\;\',./ 0123456789'
      await act({ action: 'type_text', text })
      let events = await oracle.until((e) => of(e, 'input').at(-1)?.value === text)
      t.equal(of(events, 'input').at(-1)?.value, text, 'every ASCII character arrived exactly')
      oracle.clear()
      await act({ action: 'press_key', keys: ['ctrl', 'a'] })
      events = await oracle.until(has('keyup', 2))
      t.match(of(events, 'keydown'), [{ key: 'Control' }, { key: 'a', ctrl: true }])
      t.strictSame(of(events, 'keyup').at(-1)!.selection, [0, text.length], 'ctrl+a selected all')
      oracle.clear()
      await act({ action: 'press_key', keys: ['BackSpace'] })
      events = await oracle.until(has('input'))
      t.equal(of(events, 'input').at(-1)?.value, '', 'backspace deleted the selection')
      await pastMultiClick()
    },
  },
  {
    name: 'drag_mouse selects text in the textarea',
    async run (t, { act, oracle }) {
      await act({ action: 'click_mouse', button: 'left', coordinates: [300, 100] })
      const text = 'drag across these words'
      oracle.clear()
      await act({ action: 'type_text', text })
      await oracle.until((e) => of(e, 'input').at(-1)?.value === text)
      await pastMultiClick()
      // From the left edge of the first line to far right of its end: the whole line.
      oracle.clear()
      await act({ action: 'drag_mouse', path: [[22, 30], [200, 32], [610, 30]] })
      let events = await oracle.until(has('mouseup'))
      t.match(of(events, 'mousedown'), [{ x: 22, y: 30, button: 0 }])
      t.match(of(events, 'mouseup'), [{ x: 610, y: 30, button: 0 }])
      t.strictSame(of(events, 'mouseup')[0]!.selection, [0, text.length], 'all of it selected')
      await pastMultiClick()
      // From below the text (past its end) up to the middle of the line: a part, ending at the
      // end. A click first collapses the selection: a press on selected text drags the text.
      await act({ action: 'click_mouse', button: 'left', coordinates: [300, 150] })
      await pastMultiClick()
      oracle.clear()
      await act({ action: 'drag_mouse', path: [[300, 150], [90, 30]] })
      events = await oracle.until(has('mouseup'))
      const [start, end] = of(events, 'mouseup')[0]!.selection as [number, number]
      t.ok(start > 0 && start < text.length, `selection starts inside the text (${start})`)
      t.equal(end, text.length, 'and ends at its end')
      t.equal(of(events, 'mouseup')[0]!.value, text, 'the text is unchanged')
      await pastMultiClick()
      // Clear it for the rows after.
      oracle.clear()
      await act({ action: 'press_key', keys: ['ctrl', 'a'] })
      await act({ action: 'press_key', keys: ['Delete'] })
      await oracle.until((e) => of(e, 'input').at(-1)?.value === '')
    },
  },
  {
    name: 'press_key with duration: keydown, auto-repeats, keyup after the duration',
    async run (t, { act, oracle }) {
      await act({ action: 'click_mouse', button: 'left', coordinates: [300, 100] })
      await pastMultiClick()
      oracle.clear()
      const started = performance.now()
      await act({ action: 'press_key', keys: ['x'], duration: 1.2 })
      const heldMs = performance.now() - started
      t.ok(heldMs >= 1200, `the request took ${heldMs.toFixed(0)} ms`)
      const events = await oracle.until(has('keyup'))
      const downs = of(events, 'keydown')
      // X auto-repeats a held key after 660 ms, 25 a second: about 13 in 1.2 s.
      t.match(downs[0], { key: 'x', repeat: false }, 'first keydown')
      t.ok(downs.length >= 5 && downs.slice(1).every((d) => d.key === 'x' && d.repeat === true), `${downs.length - 1} repeats, all marked repeat`)
      t.equal(of(events, 'keyup').length, 1, 'one keyup')
      t.ok(of(events, 'keyup')[0]!.seq > downs.at(-1)!.seq, 'after every keydown')
      t.equal(of(events, 'input').at(-1)?.value, 'x'.repeat(downs.length), 'one x a keydown')
      oracle.clear()
      await act({ action: 'press_key', keys: ['ctrl', 'a'] })
      await act({ action: 'press_key', keys: ['Delete'] })
      await oracle.until((e) => of(e, 'input').at(-1)?.value === '')
    },
  },
  {
    name: 'screenshots show what the page draws: full, scaled and a region',
    async run (t, { act }) {
      // Away from the target, so the pointer is over nothing checked.
      await act({ action: 'move_mouse', coordinates: [1200, 700] })
      const full = await decode((await act({ action: 'take_screenshot' })).body.base64_image as string)
      t.strictSame([full.width, full.height], [1280, 800])
      t.strictSame(full.at(950, 130), RED, 'the target')
      t.strictSame(full.at(900, 100), RED, 'its top left pixel')
      t.strictSame(full.at(899, 100), WHITE, 'left of it')
      t.strictSame(full.at(999, 159), RED, 'its bottom right pixel')
      t.strictSame(full.at(1000, 159), WHITE, 'right of it')
      t.strictSame(full.at(640, 500), PAD, 'the pad')
      t.strictSame(full.at(1100, 50), WHITE, 'the page')

      const scaled = await decode((await act({ action: 'take_screenshot' }, 'display_width_px=640&display_height_px=400')).body.base64_image as string)
      t.strictSame([scaled.width, scaled.height], [640, 400])
      t.strictSame(scaled.at(475, 65), RED, 'the target, halved')
      t.strictSame(scaled.at(320, 250), PAD, 'the pad, halved')
      t.strictSame(scaled.at(550, 25), WHITE)

      const region = await decode((await act({ action: 'take_screenshot', region: [890, 90, 1010, 170] })).body.base64_image as string)
      t.strictSame([region.width, region.height], [120, 80])
      t.strictSame(region.at(10, 10), RED, 'the region starts where asked')
      t.strictSame(region.at(9, 10), WHITE)
      t.strictSame(region.at(109, 69), RED)
      t.strictSame(region.at(110, 69), WHITE)
      t.strictSame(region.at(0, 0), WHITE)
    },
  },
  {
    name: 'a control character in type_text is refused whole, nothing typed or held',
    async run (t, { post, oracle, display }) {
      oracle.clear()
      const answer = await post({ action: 'type_text', text: 'ab\u0007c' })
      t.equal(answer.status, 400)
      t.strictSame(answer.body, {
        statusCode: 400,
        code: 'ERR_UNSUPPORTED_ACTION',
        error: 'Bad Request',
        message: 'text contains the control character U+0007 at index 2, which cannot be typed; only printable characters, newline and tab can',
      })
      await pause(300)
      t.strictSame(of(await oracle.until(() => false, 100), 'keydown', 'input'), [], 'nothing typed')
      t.strictSame(await heldOnX(display), [], 'nothing held')
    },
  },
]

/** Runs every row of the table against `driver`, on an Xvfb and a Chromium of this file's own. */
export function runOracleTable (t: Tap, driver: OracleDriver, rows: OracleRow[] = ORACLE_ROWS): void {
  let context: OracleContext
  // Set up in t.before, so that a failure there still runs every teardown (no stray processes).
  t.before(async () => {
    const { display } = await startDesktop(t)
    const app = await buildApp({ driver: new DRIVERS[driver]({ display }), logger: pino({ level: 'silent' }), desktop: { display } })
    t.teardown(() => app.close())
    await app.ready()
    const oracle = await startOracle(t, display)
    const post = async (body: unknown, query?: string): Promise<Answer> => {
      const response = await app.inject({ method: 'POST', url: `/computer${query ? `?${query}` : ''}`, payload: body as object })
      return { status: response.statusCode, body: response.json() }
    }
    context = {
      display,
      oracle,
      post,
      act: async (body, query) => {
        const answer = await post(body, query)
        t.equal(answer.status, 200, `${JSON.stringify(body)}${answer.status === 200 ? '' : `: ${JSON.stringify(answer.body)}`}`)
        return answer
      },
    }
  })

  for (const row of rows) {
    const refusal = row.cannot?.[driver]
    if (!refusal) {
      t.test(row.name, (t) => row.run(t, context))
      continue
    }
    t.test(`${row.name}: the ${driver} driver cannot, and says so`, async (t) => {
      const answer = await context.post(refusal.request)
      t.equal(answer.status, refusal.status)
      t.strictSame(answer.body, refusal.body)
      t.strictSame(await heldOnX(context.display), [], 'nothing held')
    })
  }
}
