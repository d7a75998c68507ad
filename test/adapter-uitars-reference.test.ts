/**
 * Our points against ByteDance's own parser. For every reply of the corpus, in both
 * conventions, the screen point our translation ends at must match the screen coordinates
 * `@ui-tars/action-parser` (1.2.3, UI-TARS-desktop's parser) computes for it (`start_coords`,
 * `end_coords`), given the same screen as its screenContext.
 *
 * Tolerance, per axis: max(1, screen / space) px — one unit of the model's space in screen
 * pixels, at least one pixel. The package keeps the exact fraction (x / 1000 · width, or
 * x / smart-resized width · width, rounded to 3 decimals); we must name a whole point of the
 * model's space (a box centre rounds to the nearest), and src/screen/scaling.ts sends that point to
 * the centre of the screen pixels it covers, floor((x + ½) · width / size). The two differ by
 * less than one model unit: up to 1.28 px (1280 wide) or 1.92 px (1920 wide) on the 0–1000
 * scale, under 1 px for the smart-resized image, whose pixels are nearly the screen's.
 */
import t from 'tap'
import { type AdapterCase, adapterCases } from './helpers/adapter-cases.ts'
import { actionParser } from '@ui-tars/action-parser'
import type { UnifiedAction } from '../src/actions/index.ts'
import type { Size } from '../src/screen/geometry.ts'
import { Scaler } from '../src/screen/scaling.ts'
import { smartResize, UI_TARS_RESIZE } from '../adapters/shared/smart-resize.ts'
import { uitarsAdapter } from '../adapters/uitars/index.ts'
import type { UitarsMeta } from '../adapters/uitars/index.ts'
import { build } from './helpers/build.ts'

type Reply = AdapterCase<{ payload: string }>
const replies: Reply[] = adapterCases<{ payload: string }>('uitars')

type XY = [number, number]

/** Replies the package reads differently, and why; the test checks it still does. */
const PACKAGE_DIFFERS: Record<string, string> = {
  'no-action-label-double-quotes': 'its argument splitter only knows single quotes: start_box becomes "[0.1]" and start_coords []',
  'seed-think-computer-env': "it does not drop the closing </computer_env>, so the call does not match its /^(\\w+)\\((.*)\\)$/ and is lost",
  'multiple-action-lines': 'it keeps only what follows the last "Action:", so the click of the first line is lost',
}
/** The o1 format is a mode of its own for the package. */
const PACKAGE_MODE: Record<string, 'bc' | 'o1'> = { 'o1-format': 'o1' }

const MODES = [
  { coordinates: 'relative', modelVer: '1.0', screens: [{ width: 1280, height: 800 }, { width: 1920, height: 1080 }] },
  { coordinates: 'absolute', modelVer: '1.5', screens: [{ width: 1920, height: 1080 }, { width: 2560, height: 1440 }] },
] as const

function packagePoints (reply: Reply, screen: Size, modelVer: string): XY[] {
  const quiet = console.error
  console.error = () => {} // the package logs every call it cannot read
  try {
    const { parsed } = actionParser({
      prediction: reply.payload,
      factor: [1000, 1000],
      screenContext: screen,
      mode: PACKAGE_MODE[reply.name] ?? 'bc',
      modelVer: modelVer as never,
    })
    return parsed.flatMap((p) => [p.action_inputs.start_coords, p.action_inputs.end_coords])
      .filter((c): c is XY => Array.isArray(c) && c.length === 2)
  } finally {
    console.error = quiet
  }
}

/** The points each call aims at, in the model's space; a long_press presses and releases at one. */
function ourPoints (actions: UnifiedAction[], meta: UitarsMeta): XY[] {
  return meta.calls.flatMap((call) => {
    const points = actions.slice(call.first, call.first + call.count).flatMap((a): XY[] => {
      if (a.action === 'drag_mouse') return [a.path[0] as XY, a.path.at(-1) as XY]
      if ('coordinates' in a && a.coordinates) return [a.coordinates as XY]
      return []
    })
    return points.filter((p, i) => i === 0 || p.join() !== points[i - 1]!.join() || call.name !== 'long_press')
  })
}

async function translate (app: Awaited<ReturnType<typeof build>>['app'], url: string, text: string) {
  const response = await app.inject({ method: 'POST', url, payload: text, headers: { 'content-type': 'text/plain' } })
  return { status: response.statusCode, body: response.json() }
}

for (const mode of MODES) {
  for (const screen of mode.screens) {
    const space = mode.coordinates === 'relative' ? { width: 1000, height: 1000 } : smartResize(screen, UI_TARS_RESIZE)
    const tolerance = { x: Math.max(1, screen.width / space.width), y: Math.max(1, screen.height / space.height) }

    t.test(`${mode.coordinates} on a ${screen.width}x${screen.height} screen: the package's screen points, within ${tolerance.x.toFixed(2)} x ${tolerance.y.toFixed(2)} px`, async (t) => {
      t.ok(tolerance.x <= 2 && tolerance.y <= 2, 'the bound stays within 2 px on these screens')
      const { app, driver } = await build(t, { adapters: [uitarsAdapter], fake: { screen } })
      const scaler = new Scaler(screen, space)
      let compared = 0
      for (const reply of replies) {
        const url = `/computer/uitars/translate?coordinates=${mode.coordinates}`
        const { status, body } = await translate(app, url, reply.payload)
        t.equal(status, 200, `${reply.name} translates`)
        t.strictSame([body.display_width_px, body.display_height_px], [space.width, space.height], `${reply.name}: the space is declared`)
        const ours = ourPoints(body.actions, body.meta).map((p) => scaler.toReal(p))
        const theirs = packagePoints(reply, screen, mode.modelVer)
        if (reply.name in PACKAGE_DIFFERS) {
          t.ok(theirs.length < ours.length, `${reply.name}: the package still loses points (${PACKAGE_DIFFERS[reply.name]})`)
          continue
        }
        t.equal(ours.length, theirs.length, `${reply.name}: as many points as the package`)
        ours.forEach((point, i) => {
          const [x, y] = theirs[i]!
          const off = { x: point.x - x, y: point.y - y }
          t.ok(Math.abs(off.x) <= tolerance.x && Math.abs(off.y) <= tolerance.y,
            `${reply.name} point ${i}: ours (${point.x}, ${point.y}), the package's (${x}, ${y})`)
        })
        compared += ours.length

        // What the driver receives is that same mapping (replies that wait are left out: 5 s each).
        if (body.actions.some((a: UnifiedAction) => a.action === 'wait') || ours.length === 0) continue
        driver.calls.length = 0
        const run = await translate(app, `/computer/uitars?coordinates=${mode.coordinates}&screenshot=false`, reply.payload)
        t.equal(run.status, 200, `${reply.name} runs`)
        const moves = driver.calls.filter((c) => c.call === 'moveMouse').map((c) => ({ x: (c as { x: number }).x, y: (c as { y: number }).y }))
        t.strictSame([moves[0], moves.at(-1)], [ours[0], ours.at(-1)], `${reply.name}: the driver moved to those points`)
      }
      t.ok(compared >= 39, `compared ${compared} points`)
    })
  }
}
