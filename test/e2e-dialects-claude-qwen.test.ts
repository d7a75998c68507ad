/**
 * Claude's computer toolset and Qwen3.5's XML tool call, end to end on Xvfb through the real
 * nut driver, checked by what Chromium received: one turn of toolset member blocks (a click in
 * the pixels of the screenshot Claude is shown, ctrl+a, typing) and the same through Qwen3.5's
 * `<tool_call><function=computer>…` on its 0–1000 grid. The screen pixel of each click is
 * computed here by hand from the space's definition, not from src/screen/scaling.ts.
 */
import t, { type Test } from 'tap'
import { oracleDesktop } from './helpers/desktop.ts'
import type { OracleEvent } from './helpers/oracle.ts'
import { pngSize } from './helpers/adapter-cases.ts'

const desktop = oracleDesktop(t)

// The oracle page's textarea covers x 20–620, y 20–220 of the 1280x800 screen.
const of = (events: OracleEvent[], type: string) => events.filter((e) => e.type === type)

async function send (url: string, payload: unknown) {
  const text = typeof payload === 'string'
  const response = await desktop.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': text ? 'text/plain' : 'application/json' },
    payload: text ? payload : JSON.stringify(payload),
  })
  return { status: response.statusCode, body: response.json() }
}

/** The mousedown Chromium recorded, checked against the hand-computed screen pixel (±1 for pixel centres). */
async function clickedAt (t: Test, pixel: [number, number]) {
  const events = await desktop.oracle.until((e) => of(e, 'mousedown').length > 0)
  const down = of(events, 'mousedown')[0]
  t.equal(down?.target, 'text', 'the mousedown is on the textarea')
  t.ok(Math.abs((down?.x as number) - pixel[0]) <= 1 && Math.abs((down?.y as number) - pixel[1]) <= 1,
    `at screen ${pixel}, got ${down?.x},${down?.y}`)
}

const member = (id: string, name: string, input: Record<string, unknown>) => ({ type: 'tool_use', id, name, toolset_name: 'computer', input })

t.test('computer_toolset_20260801: one turn clicks at the hand-computed pixel, selects all and types, answered block by block', async (t) => {
  // Claude is shown a 1024x640 screenshot of the 1280x800 screen: its (256, 96) is the screen's
  // (256 * 1280 / 1024, 96 * 800 / 640) = (320, 120).
  const text = 'toolset Grüße 美国 🙂'
  desktop.oracle.clear()
  const { status, body } = await send('/computer/anthropic?display_width_px=1024&display_height_px=640', [
    member('toolu_e2e_1', 'left_click', { coordinate: [256, 96] }),
    member('toolu_e2e_2', 'key', { text: 'ctrl+a' }),
    member('toolu_e2e_3', 'type', { text }),
    member('toolu_e2e_4', 'screenshot', {}),
  ])
  t.equal(status, 200)
  await clickedAt(t, [320, 120])
  const typed = await desktop.oracle.until((e) => of(e, 'input').at(-1)?.value === text, 10_000)
  t.equal(of(typed, 'input').at(-1)?.value, text, 'the textarea holds the text exactly')
  const result = (id: string, content: unknown) => ({ type: 'tool_result', tool_use_id: id, toolset_name: 'computer', content })
  t.strictSame(body.slice(0, 3), [
    result('toolu_e2e_1', [{ type: 'text', text: 'Clicked.' }]),
    result('toolu_e2e_2', [{ type: 'text', text: 'Pressed ctrl+a.' }]),
    result('toolu_e2e_3', [{ type: 'text', text: 'Typed.' }]),
  ])
  t.equal(body[3].content[0].type, 'image')
  t.strictSame(pngSize(body[3].content[0].source.data), { width: 1024, height: 640 }, 'the screenshot is the size Claude was shown')
})

t.test('Qwen3.5 XML tool calls: a click on the 0–1000 grid at the hand-computed pixel, then ctrl+a and typing', async (t) => {
  // Grid (250, 150) on 1280x800: x = 250.5 * 1280 / 1000 = 320.6, y = 150.5 * 800 / 1000 = 120.4 → (320, 120).
  const xml = (params: Record<string, string>) => `<tool_call>\n<function=computer>\n${Object.entries(params).map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`).join('')}</function>\n</tool_call>`
  desktop.oracle.clear()
  const clicked = await send('/computer/qwen?version=3.5&screenshot=false', `I will click into the text box.\n${xml({ action: 'left_click', coordinate: '[250, 150]' })}`)
  t.equal(clicked.status, 200, JSON.stringify(clicked.body).slice(0, 300))
  t.strictSame(clicked.body.calls, [{ action: 'left_click', status: 'done' }])
  await clickedAt(t, [320, 120])

  const text = 'qwen3.5 Ñandú Жук 🙂'
  desktop.oracle.clear()
  const typed = await send('/computer/qwen?version=3.5&screenshot=false', `${xml({ action: 'key', keys: '["ctrl", "a"]' })}\n${xml({ action: 'type', text })}`)
  t.equal(typed.status, 200, JSON.stringify(typed.body).slice(0, 300))
  t.strictSame(typed.body.calls, [{ action: 'key', status: 'done' }, { action: 'type', status: 'done' }])
  const events = await desktop.oracle.until((e) => of(e, 'input').at(-1)?.value === text, 10_000)
  t.equal(of(events, 'input').at(-1)?.value, text, 'the textarea holds the text exactly')
})
