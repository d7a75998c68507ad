/**
 * Every adapter, end to end on Xvfb through the real nut driver, checked by what Chromium
 * received: a click written in the adapter's own coordinate space lands on the screen pixel
 * computed here from that space's definition (not from src/screen/scaling.ts), a key combo arrives
 * with its key, code and modifiers, and typed text — non-ASCII included — arrives exactly.
 */
import t from 'tap'
import { oracleDesktop } from './helpers/desktop.ts'
import type { OracleEvent } from './helpers/oracle.ts'

const desktop = oracleDesktop(t)

const SCREEN = { width: 1280, height: 800 }
// The oracle page's textarea covers x 20–620, y 20–220 of the screen.
const IN_TEXTAREA = (x: number, y: number) => x > 20 && x < 620 && y > 20 && y < 220

const of = (events: OracleEvent[], type: string) => events.filter((e) => e.type === type)

interface Case {
  adapter: string
  /** Query string of every request. */
  query?: string
  /** The screen pixel the click is meant for, computed from the adapter's space by hand. */
  screen?: [number, number]
  /** Native payloads: a click there, ctrl+a, then typing `text`. Strings go as text/plain. */
  click?: unknown
  selectAll: unknown
  type?: (text: string) => unknown
}

// A click at a display point of a 1024x640 model display lands at 1.25 times it on 1280x800.
const DISPLAY = 'display_width_px=1024&display_height_px=640'
// smart_resize(800, 1280) with factor 28 is 812x1288 (each side rounded to a multiple of 28):
// model point (322, 203) is screen (322 * 1280 / 1288, 203 * 800 / 812) = (320, 200).
const RESIZED: [number, number] = [322, 203]

const CASES: Case[] = [
  {
    // The computer tool (the toolset, the default, is in e2e-dialects-claude-qwen.test.ts).
    adapter: 'anthropic',
    query: `tool_version=computer_20251124&${DISPLAY}`,
    screen: [320, 120],
    click: { action: 'left_click', coordinate: [256, 96] },
    selectAll: { action: 'key', text: 'ctrl+a' },
    type: (text) => ({ action: 'type', text }),
  },
  {
    adapter: 'openai',
    query: DISPLAY,
    screen: [400, 160],
    click: { type: 'computer_call', call_id: 'call_e2e', status: 'completed', actions: [{ type: 'click', button: 'left', x: 320, y: 128 }] },
    selectAll: { type: 'computer_call', call_id: 'call_e2e', status: 'completed', actions: [{ type: 'keypress', keys: ['CTRL', 'A'] }] },
    type: (text) => ({ type: 'computer_call', call_id: 'call_e2e', status: 'completed', actions: [{ type: 'type', text }] }),
  },
  {
    // Gemini's grid is 0–999 across the screen: x * 1280 / 1000, y * 800 / 1000.
    adapter: 'gemini',
    screen: [320, 120],
    click: { name: 'click_at', args: { x: 250, y: 150 } },
    selectAll: { name: 'key_combination', args: { keys: 'Control+A' } },
    type: (text) => ({ functionCall: { name: 'type_text_at', args: { x: 250, y: 150, text, press_enter: false } } }),
  },
  {
    // UI-TARS 1.0 / Doubao: 0–1000 relative on each axis.
    adapter: 'uitars',
    screen: [448, 100],
    click: "Thought: The text box is on the left.\nAction: click(start_box='(350,125)')",
    selectAll: "Thought: Select what is there.\nAction: hotkey(key='ctrl a')",
    type: (text) => ({ response: `Thought: Type it.\nAction: type(content='${text}')` }),
  },
  {
    adapter: 'uitars',
    query: 'coordinates=absolute',
    screen: [320, 200],
    click: `Action: click(start_box='<|box_start|>(${RESIZED[0]},${RESIZED[1]})<|box_end|>')`,
    selectAll: "Action: hotkey(key='ctrl a')",
    type: (text) => `Action: type(content='${text}')`,
  },
  {
    adapter: 'qwen',
    screen: [320, 200],
    click: { name: 'computer_use', arguments: { action: 'left_click', coordinate: RESIZED } },
    selectAll: `<tool_call>\n${JSON.stringify({ name: 'computer_use', arguments: { action: 'key', keys: ['ctrl', 'a'] } })}\n</tool_call>`,
    type: (text) => ({ name: 'computer_use', arguments: { action: 'type', text } }),
  },
  {
    adapter: 'hud',
    query: DISPLAY,
    screen: [500, 150],
    click: { type: 'click', point: { x: 400, y: 120 }, button: 'left', pattern: null, hold_keys: null },
    selectAll: { type: 'press', keys: ['ctrl', 'a'] },
    type: (text) => [{ type: 'type', text, enter_after: false }],
  },
  {
    adapter: 'conatus',
    query: DISPLAY,
    screen: [560, 200],
    click: { xy: [448, 160], type: 'left_mouse_click' },
    selectAll: { name: 'computer', returned_arguments: '{"keys": ["ctrl+a"], "type": "keypress"}', call_id: 'call_e2e' },
    type: (text) => ({ text, type: 'type' }),
  },
  {
    adapter: 'operator',
    query: DISPLAY,
    screen: [250, 125],
    click: { action: 'click', x: 200, y: 100, button: 'left' },
    selectAll: { action: 'shortcut', shortcut: 'ctrl+a' },
    type: (text) => ({ action: 'type', text, caret: 'idle' }),
  },
  {
    // CUP's session actions are keys and waits: its clicks and typing act on elements of the
    // accessibility tree. The textarea still has the focus from the case before.
    adapter: 'cup',
    selectAll: [{ action: 'press_keys', keys: 'ctrl+a' }, { action: 'wait', ms: 50 }],
  },
]

async function send (adapter: string, query: string | undefined, payload: unknown) {
  const text = typeof payload === 'string'
  const response = await desktop.app.inject({
    method: 'POST',
    url: `/computer/${adapter}${query ? `?${query}` : ''}`,
    headers: { 'content-type': text ? 'text/plain' : 'application/json' },
    payload: text ? payload : JSON.stringify(payload),
  })
  t.equal(response.statusCode, 200, `${adapter}: ${response.body.slice(0, 300)}`)
}

for (const c of CASES) {
  const name = `${c.adapter}${c.query ? `?${c.query}` : ''}`
  const what = c.click ? 'a click in its own space, ctrl+a and non-ASCII text reach' : 'ctrl+a reaches'
  t.test(`${name}: ${what} Chromium`, async (t) => {
    if (c.click && c.screen) {
      t.ok(IN_TEXTAREA(...c.screen), 'the case aims at the textarea')
      t.ok(c.screen[0] < SCREEN.width && c.screen[1] < SCREEN.height)
      desktop.oracle.clear()
      await send(c.adapter, c.query, c.click)
      const clicked = await desktop.oracle.until((e) => of(e, 'click').length > 0)
      const down = of(clicked, 'mousedown')[0]
      t.ok(down, 'a mousedown arrived')
      t.equal(down?.target, 'text', 'on the textarea')
      t.ok(Math.abs((down?.x as number) - c.screen[0]) <= 1 && Math.abs((down?.y as number) - c.screen[1]) <= 1,
        `at screen ${c.screen} (±1 for pixel centres), got ${down?.x},${down?.y}`)
      await new Promise((resolve) => setTimeout(resolve, 600)) // past the multi-click interval
    }

    desktop.oracle.clear()
    await send(c.adapter, c.query, c.selectAll)
    const keyed = await desktop.oracle.until((e) => of(e, 'keyup').some((k) => k.key === 'Control'))
    t.match(of(keyed, 'keydown').find((k) => k.key === 'Control'), { code: 'ControlLeft', ctrl: true }, 'ctrl arrives as ControlLeft')
    t.match(of(keyed, 'keydown').find((k) => k.code === 'KeyA'), { key: 'a', ctrl: true, shift: false, alt: false }, 'a arrives with ctrl held')

    if (!c.type) return
    // Different per case, so a stale value cannot pass; replaces the selection.
    const text = `${c.adapter} Grüße Ñandú — Ωμέγα Жук 美国 🙂 #@!`
    desktop.oracle.clear()
    await send(c.adapter, c.query, c.type(text))
    const typed = await desktop.oracle.until((e) => of(e, 'input').at(-1)?.value === text, 10_000)
    t.equal(of(typed, 'input').at(-1)?.value, text, 'the textarea holds the text exactly')
  })
}
