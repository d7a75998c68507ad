/**
 * The oracle table: actions sent through the HTTP API to a real driver on a real Xvfb, each
 * checked by what Chromium received (test/helpers/oracle.ts) or, for screenshots, against
 * what the page draws at known places (test/fixtures/oracle/page.html). One test file per
 * driver runs it (tap runs them in parallel). A row a driver cannot do names that driver in
 * `cannot` with the whole error body it must answer; it is never skipped.
 */
import pino from 'pino'
import { decode } from './pixels.ts'
import type tap from 'tap'
import { buildApp } from '../../src/http/app.ts'
import type { Driver } from '../../src/driver/driver.ts'
import { NutDriver } from '../../drivers/nut/nut-driver.ts'
import { XdotoolDriver } from '../../drivers/xdotool/xdotool-driver.ts'
import { CANONICAL_KEYS } from '../../src/keys/index.ts'
import { heldOnX, startDesktop } from './desktop.ts'
import { startOracle, type OracleEvent } from './oracle.ts'
import { errorBody } from './error-body.ts'

export type OracleDriver = 'nut' | 'xdotool'

/** A tap test (the type of a subtest's `t`). */
type Tap = Parameters<Parameters<typeof tap.test>[0]>[0]

interface Answer { status: number, body: Record<string, unknown> }

export interface OracleContext {
  display: string
  oracle: Awaited<ReturnType<typeof startOracle>>
  /** POSTs one action to /computer (with a query string, if any), or `{ actions }` to /computer/batch. */
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
/** Selects all of the focused textarea and deletes it, until the page reports it empty. */
async function emptyTextarea ({ act, oracle }: Pick<OracleContext, 'act' | 'oracle'>) {
  oracle.clear()
  await act({ action: 'press_key', keys: ['ctrl', 'a'] })
  await act({ action: 'press_key', keys: ['Delete'] })
  await oracle.until((e) => of(e, 'input').at(-1)?.value === '')
}
/** Chromium's multi-click interval is 500 ms: wait it out so the next click counts from 1. */
const pastMultiClick = () => pause(600)

// What page.html draws: white page, the red #target at 900,100 (100x60), the green #pad from y 240.
const WHITE = [255, 255, 255]
const RED = [255, 0, 0]
const PAD = [0xe0, 0xff, 0xe0]

/**
 * What Chromium reports for every canonical key pressed alone: the `key` and `code` of the
 * last keydown (a key the layout puts on a shifted level comes after a Shift keydown, a keypad
 * digit after a NumLock keydown). Chromium has no DOM name for some X keys (F13–F24, XF86Stop,
 * Select, Execute, Clear, KP_Separator, some input-method keys) nor for a key pressed on a
 * spare keycode (¥ on a us layout): it reports key U+0000, and `code` is whatever that keycode
 * is named (null: not compared); the keydown and keyup still arrive. F11 never reaches a page:
 * Chromium takes it for full screen (the driver tests see it arrive at X).
 */
const CHROMIUM_KEYS: Array<[string, string, string | null]> = [
  ["shift", "Shift", "ShiftLeft"], ["shift_r", "Shift", "ShiftRight"],
  ["ctrl", "Control", "ControlLeft"], ["ctrl_r", "Control", "ControlRight"], ["alt", "Alt", "AltLeft"],
  ["alt_r", "Alt", "AltRight"], ["super", "Meta", "MetaLeft"], ["super_r", "Meta", "MetaRight"],
  ["altgr", "AltGraph", ""], ["enter", "Enter", "Enter"], ["escape", "Escape", "Escape"],
  ["tab", "Tab", "Tab"], ["backspace", "Backspace", "Backspace"], ["delete", "Delete", "Delete"],
  ["insert", "Insert", "Insert"], ["space", " ", "Space"], ["left", "ArrowLeft", "ArrowLeft"],
  ["right", "ArrowRight", "ArrowRight"], ["up", "ArrowUp", "ArrowUp"],
  ["down", "ArrowDown", "ArrowDown"], ["home", "Home", "Home"], ["end", "End", "End"],
  ["pageup", "PageUp", "PageUp"], ["pagedown", "PageDown", "PageDown"],
  ["printscreen", "PrintScreen", "PrintScreen"], ["pause", "Pause", "Pause"],
  ["menu", "ContextMenu", "ContextMenu"], ["capslock", "CapsLock", "CapsLock"],
  ["numlock", "NumLock", "NumLock"], ["scrolllock", "ScrollLock", "ScrollLock"],
  ["kp_enter", "Enter", "NumpadEnter"], ["kp_add", "+", "NumpadAdd"],
  ["kp_subtract", "-", "NumpadSubtract"], ["kp_multiply", "*", "NumpadMultiply"],
  ["kp_divide", "/", "NumpadDivide"], ["kp_decimal", ".", "NumpadComma"],
  ["kp_equal", "=", "NumpadEqual"], ["volume_up", "AudioVolumeUp", "AudioVolumeUp"],
  ["volume_down", "AudioVolumeDown", "AudioVolumeDown"],
  ["volume_mute", "AudioVolumeMute", "AudioVolumeMute"],
  ["media_play_pause", "MediaPlayPause", "MediaPlayPause"], ["media_stop", "MediaStop", "MediaStop"],
  ["media_next", "MediaTrackNext", "MediaTrackNext"],
  ["media_previous", "MediaTrackPrevious", "MediaTrackPrevious"],
  ["browser_back", "BrowserBack", "BrowserBack"],
  ["browser_forward", "BrowserForward", "BrowserForward"],
  ["browser_refresh", "BrowserRefresh", "BrowserRefresh"],
  ["browser_home", "BrowserHome", "BrowserHome"], ["browser_search", "BrowserSearch", "BrowserSearch"],
  ["browser_favorites", "BrowserFavorites", "BrowserFavorites"], ["browser_stop", "\u0000", null],
  ["launch_mail", "LaunchMail", "LaunchMail"], ["launch_media", "LaunchMusicPlayer", ""],
  ["launch_app1", "LaunchApplication1", ""], ["launch_app2", "LaunchApplication2", "LaunchApp2"],
  ["sleep", "Standby", "Sleep"], ["select", "\u0000", null], ["execute", "\u0000", null],
  ["help", "Help", "Help"], ["clear", "\u0000", null], ["kp_separator", "\u0000", null],
  ["iso_left_tab", "Tab", "Tab"], ["hangul", "HangulMode", "Lang1"], ["hanja", "HanjaMode", "Lang2"],
  ["junja", "\u0000", null], ["kana", "\u0000", null], ["kanji", "\u0000", null],
  ["convert", "Convert", "Convert"], ["nonconvert", "NonConvert", "NonConvert"], ["f1", "F1", "F1"],
  ["f2", "F2", "F2"], ["f3", "F3", "F3"], ["f4", "F4", "F4"], ["f5", "F5", "F5"], ["f6", "F6", "F6"],
  ["f7", "F7", "F7"], ["f8", "F8", "F8"], ["f9", "F9", "F9"], ["f10", "F10", "F10"],
  ["f12", "F12", "F12"], ["f13", "\u0000", null], ["f14", "\u0000", null], ["f15", "\u0000", null],
  ["f16", "\u0000", null], ["f17", "\u0000", null], ["f18", "\u0000", null], ["f19", "\u0000", null],
  ["f20", "\u0000", null], ["f21", "\u0000", null], ["f22", "\u0000", null], ["f23", "\u0000", null],
  ["f24", "\u0000", null], ["kp_0", "0", "Numpad0"], ["kp_1", "1", "Numpad1"],
  ["kp_2", "2", "Numpad2"], ["kp_3", "3", "Numpad3"], ["kp_4", "4", "Numpad4"],
  ["kp_5", "5", "Numpad5"], ["kp_6", "6", "Numpad6"], ["kp_7", "7", "Numpad7"],
  ["kp_8", "8", "Numpad8"], ["kp_9", "9", "Numpad9"], ["a", "a", "KeyA"], ["b", "b", "KeyB"],
  ["c", "c", "KeyC"], ["d", "d", "KeyD"], ["e", "e", "KeyE"], ["f", "f", "KeyF"], ["g", "g", "KeyG"],
  ["h", "h", "KeyH"], ["i", "i", "KeyI"], ["j", "j", "KeyJ"], ["k", "k", "KeyK"], ["l", "l", "KeyL"],
  ["m", "m", "KeyM"], ["n", "n", "KeyN"], ["o", "o", "KeyO"], ["p", "p", "KeyP"], ["q", "q", "KeyQ"],
  ["r", "r", "KeyR"], ["s", "s", "KeyS"], ["t", "t", "KeyT"], ["u", "u", "KeyU"], ["v", "v", "KeyV"],
  ["w", "w", "KeyW"], ["x", "x", "KeyX"], ["y", "y", "KeyY"], ["z", "z", "KeyZ"], ["0", "0", "Digit0"],
  ["1", "1", "Digit1"], ["2", "2", "Digit2"], ["3", "3", "Digit3"], ["4", "4", "Digit4"],
  ["5", "5", "Digit5"], ["6", "6", "Digit6"], ["7", "7", "Digit7"], ["8", "8", "Digit8"],
  ["9", "9", "Digit9"], ["`", "`", "Backquote"], ["-", "-", "Minus"], ["=", "=", "Equal"],
  ["[", "[", "BracketLeft"], ["]", "]", "BracketRight"], ["\\", "\\", "Backslash"],
  [";", ";", "Semicolon"], ["'", "'", "Quote"], [",", ",", "Comma"], [".", ".", "Period"],
  ["/", "/", "Slash"], ["~", "~", "Backquote"], ["!", "!", "Digit1"], ["@", "@", "Digit2"],
  ["#", "#", "Digit3"], ["$", "$", "Digit4"], ["%", "%", "Digit5"], ["^", "^", "Digit6"],
  ["&", "&", "Digit7"], ["*", "*", "Digit8"], ["(", "(", "NumpadParenLeft"],
  [")", ")", "NumpadParenRight"], ["_", "_", "Minus"], ["+", "+", "Equal"], ["{", "{", "BracketLeft"],
  ["}", "}", "BracketRight"], ["|", "|", "Backslash"], [":", ":", "Semicolon"], ["\"", "\"", "Quote"],
  ["<", "<", "IntlBackslash"], [">", ">", "Period"], ["?", "?", "Slash"], ["\u00a5", "\u0000", null],
]
const KEYS_CHROMIUM_TAKES = ['f11']

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
    name: 'move_mouse, then clicks without coordinates, click_type down and up, get_cursor_position, press_type and wait',
    async run (t, { act, oracle }) {
      await act({ action: 'move_mouse', coordinates: [450, 520] })
      t.strictSame((await act({ action: 'get_cursor_position' })).body.cursor_position, [450, 520], 'get_cursor_position reads it back')
      const buttons: Array<[string, number]> = [['left', 0], ['middle', 1], ['right', 2], ['back', 3], ['forward', 4]]
      for (const [button, dom] of buttons) {
        oracle.clear()
        await act({ action: 'click_mouse', button })
        const events = await oracle.until(has('mouseup'))
        t.match([of(events, 'mousedown')[0], of(events, 'mouseup')[0]], [{ button: dom, x: 450, y: 520 }, { button: dom, x: 450, y: 520 }],
          `${button} without coordinates: where the pointer is`)
      }
      await pastMultiClick()
      oracle.clear()
      await act({ action: 'click_mouse', button: 'left', coordinates: [470, 540], click_type: 'down' })
      let events = await oracle.until(has('mouseup'), 400)
      t.match(of(events, 'mousedown'), [{ button: 0, x: 470, y: 540, buttons: 1 }], 'click_type down: the button goes down')
      t.strictSame(of(events, 'mouseup'), [], '…and stays down')
      await act({ action: 'click_mouse', button: 'left', click_type: 'up' })
      events = await oracle.until(has('click'))
      t.match(of(events, 'mouseup'), [{ button: 0, x: 470, y: 540, buttons: 0 }], 'click_type up: released where it went down')
      t.equal(of(events, 'click').length, 1, 'the two halves make one click')
      await pastMultiClick()
      oracle.clear()
      await act({ action: 'press_key', keys: ['shift'], press_type: 'down' })
      await act({ action: 'click_mouse', button: 'left', coordinates: [490, 560] })
      await act({ action: 'press_key', keys: ['shift'], press_type: 'up' })
      events = await oracle.until(has('keyup'))
      t.match(of(events, 'keydown'), [{ key: 'Shift' }], 'press_type down: Shift goes down')
      t.match(of(events, 'click'), [{ shift: true }], 'a click meanwhile carries it')
      t.match(of(events, 'keyup'), [{ key: 'Shift' }], 'press_type up: released')
      oracle.clear()
      const started = performance.now()
      await act({ action: 'wait', duration: 0.3 })
      const waited = performance.now() - started
      t.ok(waited >= 295, `wait 0.3 s took ${Math.round(waited)} ms`)
      t.strictSame(await oracle.until(() => false, 50), [], 'and sent nothing')
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
      await emptyTextarea({ act, oracle })
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
      await emptyTextarea({ act, oracle })
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
      t.strictSame(answer.body, errorBody(400, 'ERR_UNSUPPORTED_ACTION', 'text contains the control character U+0007 at index 2, which cannot be typed; only printable characters, newline and tab can'))
      await pause(300)
      t.strictSame(of(await oracle.until(() => false, 100), 'keydown', 'input'), [], 'nothing typed')
      t.strictSame(await heldOnX(display), [], 'nothing held')
    },
  },
  {
    // Last: some of these keys change the page's zoom.
    name: 'every canonical key arrives with the key and code Chromium gives it',
    async run (t, { act, post, oracle }) {
      // Outside the textarea the page keeps the browser from acting on keys (F5, browser keys).
      await act({ action: 'click_mouse', button: 'left', coordinates: [640, 600] })
      await pastMultiClick()
      const expected = new Map(CHROMIUM_KEYS.map(([name, key, code]) => [name, { key, code }]))
      t.strictSame([...CANONICAL_KEYS.map((k) => k.name)].sort(), [...expected.keys(), ...KEYS_CHROMIUM_TAKES].sort(), 'the table covers every canonical key')
      // One batch, one press per key (lock keys twice, to leave them as they were); the events
      // fall into one run per press, from a keydown to the keyup that leaves no key down.
      const names = CANONICAL_KEYS.map((k) => k.name).filter((name) => !KEYS_CHROMIUM_TAKES.includes(name))
      const presses = names.flatMap((name) => (/lock$/.test(name) ? [name, name] : [name]))
      oracle.clear()
      for (let i = 0; i < presses.length; i += 100) {
        const answer = await post({ actions: presses.slice(i, i + 100).map((name) => ({ action: 'press_key', keys: [name] })) })
        t.equal(answer.status, 200, `presses ${i}–${Math.min(i + 100, presses.length) - 1}`)
      }
      const runs = (events: OracleEvent[]) => {
        const found: OracleEvent[][] = []
        let run: OracleEvent[] = []
        let down = 0
        for (const event of events) {
          if (event.type !== 'keydown' && event.type !== 'keyup') continue
          run.push(event)
          down += event.type === 'keydown' ? 1 : -1
          if (down <= 0) { found.push(run); run = []; down = 0 }
        }
        return found
      }
      const pressed = runs(await oracle.until((events) => runs(events).length >= presses.length, 20_000))
      t.equal(pressed.length, presses.length, 'every press arrived and was released')
      let at = 0
      for (const name of names) {
        const down = of(pressed[at] ?? [], 'keydown').at(-1)
        const want = expected.get(name)!
        t.strictSame(down && { key: down.key, code: want.code === null ? null : down.code }, want, name)
        at += /lock$/.test(name) ? 2 : 1
      }
      for (const name of KEYS_CHROMIUM_TAKES) {
        oracle.clear()
        await act({ action: 'press_key', keys: [name] })
        t.strictSame(of(await oracle.until(has('keydown'), 300), 'keydown'), [], `${name}: Chromium keeps it from the page`)
      }
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
      const route = typeof body === 'object' && body !== null && 'actions' in body ? '/computer/batch' : '/computer'
      const response = await app.inject({ method: 'POST', url: `${route}${query ? `?${query}` : ''}`, payload: body as object })
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
