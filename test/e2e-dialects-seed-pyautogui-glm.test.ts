/**
 * The newest dialects end to end on Xvfb through the real nut driver, checked by what Chromium
 * received: a UI-TARS-2 / Seed <seed:tool_call>, pyautogui code (OpenCUA's smart-resized pixels
 * and 0–1 fractions) and a GLM-V PC action each click the screen pixel computed here by hand
 * from the dialect's own definition of its coordinates (not from src/screen/scaling.ts).
 */
import t from 'tap'
import { oracleDesktop } from './helpers/desktop.ts'
import type { OracleEvent } from './helpers/oracle.ts'

const desktop = oracleDesktop(t)

// The oracle page's textarea covers x 20–620, y 20–220 of the 1280x800 screen.
const IN_TEXTAREA = (x: number, y: number) => x > 20 && x < 620 && y > 20 && y < 220
const of = (events: OracleEvent[], type: string) => events.filter((e) => e.type === type)

interface Case {
  name: string
  url: string
  /** The model's reply, sent as text/plain. */
  reply: string
  /** The screen pixel the click is meant for, by hand. */
  screen: [number, number]
}

const CASES: Case[] = [
  {
    // Seed's points are 0–1000 on each axis: 200 × 1280 / 1000 = 256, 150 × 800 / 1000 = 120.
    name: 'uitars: a Seed <seed:tool_call> click',
    url: '/computer/uitars',
    reply: '<think>The text box is on the left.</think><seed:tool_call>\n<function=click>\n<parameter=point><point>200 150</point></parameter>\n</function>\n</seed:tool_call>',
    screen: [256, 120],
  },
  {
    // OpenCUA sees 1280x800 as 1288x812 (smart_resize, factor 28): 483 × 1280 / 1288 = 480, 203 × 800 / 812 = 200.
    name: 'pyautogui: an OpenCUA click in smart-resized pixels',
    url: '/computer/pyautogui?coordinates=smart-resize',
    reply: '## Thought:\nThe text box is on the left.\n\n## Action:\nClick the text box.\n\n## Code:\n```python\npyautogui.click(x=483, y=203)\n```',
    screen: [480, 200],
  },
  {
    // Fractions of the screen: 0.3 × 1280 = 384, 0.2 × 800 = 160.
    name: 'pyautogui: a click in 0–1 fractions',
    url: '/computer/pyautogui?coordinates=relative',
    reply: '```python\npyautogui.click(x=0.3, y=0.2)\n```',
    screen: [384, 160],
  },
  {
    // GLM-V's points are thousandths, 0–999: 150 × 1280 / 1000 = 192, 100 × 800 / 1000 = 80.
    name: 'glm: a GLM-V PC left_click',
    url: '/computer/glm',
    reply: "The text box is on the left.\nAction: <|begin_of_box|>left_click(start_box='[150, 100]', element_info='text box')<|end_of_box|>\nMemory:\n[]",
    screen: [192, 80],
  },
]

for (const c of CASES) {
  t.test(`${c.name} reaches Chromium at the hand-computed pixel`, async (t) => {
    t.ok(IN_TEXTAREA(...c.screen), 'the case aims at the textarea')
    desktop.oracle.clear()
    const response = await desktop.app.inject({ method: 'POST', url: c.url, headers: { 'content-type': 'text/plain' }, payload: c.reply })
    t.equal(response.statusCode, 200, response.statusCode === 200 ? 'answered 200' : response.body.slice(0, 300))
    t.equal(response.json().error, null, 'the native answer reports no error')
    const clicked = await desktop.oracle.until((e) => of(e, 'click').length > 0)
    const down = of(clicked, 'mousedown')
    t.equal(down.length, 1, 'one mousedown')
    t.equal(down[0]?.target, 'text', 'on the textarea')
    t.ok(Math.abs((down[0]?.x as number) - c.screen[0]) <= 1 && Math.abs((down[0]?.y as number) - c.screen[1]) <= 1,
      `at screen ${c.screen} (±1 for pixel centres), got ${down[0]?.x},${down[0]?.y}`)
  })
}
