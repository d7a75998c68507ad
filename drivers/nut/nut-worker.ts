/**
 * The child process that holds nut-js (forked by NutDriver, DISPLAY set). It exists so that
 * when the X server dies — Xlib then calls exit(), or libnut segfaults — only this process
 * goes, never the HTTP server. It answers requests one at a time, in arrival order.
 *
 * Where nut-js cannot do a thing exactly, this file does it another way:
 * - buttons 8/9 (back/forward): xdotool, since libnut knows only left/middle/right;
 * - keys libnut has no name for: XTest on their keycode when the live keymap has them on the
 *   first level, else `xdotool keydown/keyup <keysym>` (see keysym-to-nut.ts);
 * - text: nut-js types shifted punctuation unshifted and drops non-ASCII, xdotool type loses
 *   characters (feasibility §4), so all text goes through TextTyper (drivers/x11): XTest on
 *   the live keymap, spare keycodes bound for the rest — exact on any layout.
 */
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { Button, keyboard, mouse, Point as NutPoint, Region, screen } from '@nut-tree-fork/nut-js'
import type { MouseButton, Point, RawImage, Rect, Size } from '../../src/driver.ts'
import { readKeymap, type Keymap } from './keymap.ts'
import { KEYSYM_TO_NUT } from './keysym-to-nut.ts'
import { WorkerError, type Calls, type Command, type Reply } from './protocol.ts'
import { keysymCode } from '../x11/keysym-codes.ts'
import { NoSpareKeycode, TextTyper } from '../x11/text-typer.ts'
import { UnsupportedAction } from '../../src/errors.ts'

/** The native calls nut-js does not expose with the behaviour needed here. */
interface LibNut {
  setKeyboardDelay: (ms: number) => void
  keyToggle: (key: string, state: 'down' | 'up', modifiers: string[]) => void
  keyTap: (key: string, modifiers: string[]) => void
  scrollMouse: (x: number, y: number) => void
}
const { libnut } = createRequire(import.meta.url)('@nut-tree-fork/libnut/dist/import_libnut.js') as { libnut: LibNut }

// nut-js sleeps 100 ms (mouse) and 300 ms (keyboard) before actions by default, inside
// blocking native calls; the server wants X's own speed and adds pacing itself if needed.
mouse.config.autoDelayMs = 0
keyboard.config.autoDelayMs = 0
libnut.setKeyboardDelay(0)

/** Runs xdotool on our DISPLAY (inherited). */
function xdotool (args: string[]): Promise<{ stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile('xdotool', args, { timeout: 30_000, maxBuffer: 1024 * 1024 }, (error, _stdout, stderr) => {
      if (error) reject(new WorkerError('failure', `xdotool ${args[0]} failed: ${stderr.trim() || error.message}`))
      else resolve({ stderr })
    })
    // xdotool never reads stdin and may exit first: closing the pipe after it is EPIPE,
    // which must not take this process down (it did, now and then, on a button press).
    child.stdin?.on('error', () => {})
    child.stdin?.end()
  })
}

const NUT_BUTTONS: Partial<Record<MouseButton, Button>> = { left: Button.LEFT, middle: Button.MIDDLE, right: Button.RIGHT }
// libnut throws "Invalid mouse button specified" for anything but left/middle/right; xdotool
// presses X buttons 8 and 9 over XTest, which browsers read as back and forward.
const X_BUTTONS: Record<MouseButton, number> = { left: 1, middle: 2, right: 3, back: 8, forward: 9 }

async function button (which: MouseButton, state: 'down' | 'up'): Promise<void> {
  const nut = NUT_BUTTONS[which]
  if (nut === undefined) {
    await xdotool([state === 'down' ? 'mousedown' : 'mouseup', String(X_BUTTONS[which])])
    return
  }
  await (state === 'down' ? mouse.pressButton(nut) : mouse.releaseButton(nut))
}

let keymap: Keymap = { firstLevel: new Set() }

async function key (keysym: string, state: 'down' | 'up'): Promise<void> {
  const nut = KEYSYM_TO_NUT.get(keysym)
  if (nut !== undefined && keymap.firstLevel.has(keysym)) {
    libnut.keyToggle(nut, state, [])
    return
  }
  // A key libnut has no name for (Help, Select, launch keys…), or one no keycode carries (¥ on
  // a us layout): XTest on its keycode, or on a spare keycode bound to it and left bound. Not
  // xdotool: it reads the key name 'Help' as a request for its usage text, and unbinds the
  // spare keycode right after the press, before a busy application has read it (NoSymbol).
  const code = keysymCode(keysym)
  try {
    if (typer && code !== undefined && await typer.toggleKey(code, state)) return
  } catch (error) {
    if (error instanceof NoSpareKeycode) throw new WorkerError('unsupported', `no keycode carries ${keysym} and the keymap has no empty keycode left to bind it to`)
    throw error
  }
  // A keysym on a shifted level only: xdotool finds its keycode and level. The press itself
  // is the right keysym (checked against xev for every canonical key), with two side effects
  // of xdotool's: for a second-level keysym ('exclam') it adds Shift only around the press, so
  // a held '!' auto-repeats as '1'; for a keypad digit it presses Num_Lock around it, which
  // flips the Num Lock state each time.
  // For a name X does not know it only warns and exits 0, hence the stderr check.
  const { stderr } = await xdotool([state === 'down' ? 'keydown' : 'keyup', '--', keysym])
  if (/No such key name/i.test(stderr)) throw new WorkerError('unsupported', `X has no key named '${keysym}'`)
}

let typer: TextTyper | undefined

async function typeText (text: string): Promise<void> {
  if (!typer) throw new WorkerError('failure', 'the typing connection to the X server is not open')
  await typer.type(text)
}

async function screenSize (): Promise<Size> {
  return { width: await screen.width(), height: await screen.height() }
}

async function screenshot (region?: Rect): Promise<RawImage> {
  if (region) {
    const size = await screenSize()
    const { x, y, width, height } = region
    const inside = [x, y, width, height].every(Number.isInteger) && x >= 0 && y >= 0 && width > 0 && height > 0 &&
      x + width <= size.width && y + height <= size.height
    if (!inside) throw new WorkerError('unsupported', `region x=${x} y=${y} ${width}x${height} is not a whole-pixel rectangle inside the ${size.width}x${size.height} screen`)
  }
  const image = region
    ? await screen.grabRegion(new Region(region.x, region.y, region.width, region.height))
    : await screen.grab()
  const rowBytes = image.width * 4
  let data = image.data
  if (image.byteWidth !== rowBytes) {
    // XGetImage may pad rows; the driver contract is tightly packed rows.
    data = Buffer.allocUnsafe(rowBytes * image.height)
    for (let row = 0; row < image.height; row++) image.data.copy(data, row * rowBytes, row * image.byteWidth, row * image.byteWidth + rowBytes)
  }
  return { width: image.width, height: image.height, order: 'bgra', data }
}

const handlers: { [K in keyof Calls]: (...args: Calls[K]['args']) => Promise<Calls[K]['result']> } = {
  screenSize,
  moveMouse: async (point: Point) => {
    await mouse.setPosition(new NutPoint(Math.round(point.x), Math.round(point.y)))
    // A round trip on libnut's own connection: the warp is only flushed, and the server reads
    // the pointer over another connection right after this answers, which could overtake it.
    await mouse.getPosition()
  },
  cursorPosition: async () => { const { x, y } = await mouse.getPosition(); return { x, y } },
  buttonDown: (which) => button(which, 'down'),
  buttonUp: (which) => button(which, 'up'),
  // libnut's scrollMouse(x, y) sends button 4 (up) for y > 0 and button 6 (LEFT) for x > 0:
  // the reverse of our contract on both axes (dy > 0 down = 5, dx > 0 right = 7). nut-js'
  // own scrollRight passes +x and so scrolls left (feasibility §4); negating both is right.
  wheel: async (dx, dy) => { libnut.scrollMouse(-Math.round(dx), -Math.round(dy)) },
  keyDown: (keysym) => key(keysym, 'down'),
  keyUp: (keysym) => key(keysym, 'up'),
  typeText,
  screenshot,
}

function send (reply: Reply): void {
  process.send!(reply)
}

/** Touches the display once, so a broken one fails here, before 'ready'; reads the keymap. */
async function connect (): Promise<void> {
  await mouse.getPosition()
  typer = await TextTyper.open(process.env.DISPLAY ?? '')
  // The typer's connection ends by itself only when X went away or stopped answering (its
  // requests have deadlines): libnut's own connection is as good as gone, and a call blocked
  // in it would never return. Exiting tells the server now.
  typer.onLost((error) => {
    process.stderr.write(`nut-worker: ${error.message}\n`)
    process.exit(3)
  })
  const notes: string[] = []
  try {
    keymap = await readKeymap()
  } catch (error) {
    // Without the keymap every key goes through xdotool: slower, still exact.
    notes.push(`could not read the keymap (${(error as Error).message}): keys go through xdotool`)
  }
  send({ ready: true, notes })
}

let queue = Promise.resolve()
process.on('message', (command: Command) => {
  queue = queue.then(async () => {
    if ('connect' in command) return connect()
    try {
      const handler = handlers[command.op] as (...args: unknown[]) => Promise<unknown>
      send({ id: command.id, ok: true, value: await handler(...command.args) })
    } catch (error) {
      const kind = error instanceof WorkerError ? error.kind : error instanceof UnsupportedAction ? 'unsupported' : typer?.lost ? 'unavailable' : 'failure'
      send({ id: command.id, ok: false, kind, message: error instanceof Error ? error.message : String(error) })
    }
  }).catch((error: unknown) => {
    // Only connect() gets here; without a display there is nothing to serve.
    process.stderr.write(`nut-worker: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  })
})
// The server went away (or closed us): nothing left to serve.
process.on('disconnect', () => process.exit(0))

// nut-js is loaded (the imports above); no display has been touched yet.
send({ loaded: true })
