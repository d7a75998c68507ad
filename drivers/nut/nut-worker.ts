/**
 * The child process that holds nut-js (forked by NutDriver, DISPLAY set). It exists so that
 * when the X server dies — Xlib then calls exit(), or libnut segfaults — only this process
 * goes, never the HTTP server. It answers requests one at a time, in arrival order.
 *
 * Input does not go through nut-js: each nut-js call is a blocking native call with a sync of
 * its own, three for a click. A whole input plan (a click, a drag, a combo) arrives as one
 * message and goes out as XTest requests on one node-x11 connection, with one round trip at
 * the end (drivers/x11/xtest-input.ts): every button including back/forward (8/9), the wheel,
 * and keys on the first level of the live keymap. Other keys come back here (key()): XTest on
 * a spare keycode bound to them, else `xdotool keydown/keyup <keysym>`.
 * Text: nut-js types shifted punctuation unshifted and drops non-ASCII, xdotool type loses
 * characters (feasibility §4), so all text goes through TextTyper (drivers/x11): XTest on
 * the live keymap, spare keycodes bound for the rest — exact on any layout.
 */
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { keyboard, mouse, Region, screen } from '@nut-tree-fork/nut-js'
import type { Point, RawImage, Rect, Size } from '../../src/driver.ts'
import { readKeymap, type Keymap } from './keymap.ts'
import { KEYSYM_TO_NUT } from './keysym-to-nut.ts'
import { WorkerError, type Calls, type Command, type Reply } from './protocol.ts'
import { keysymCode } from '../x11/keysym-codes.ts'
import { NoSpareKeycode, TextTyper } from '../x11/text-typer.ts'
import { XTestInput, type XInputStep } from '../x11/xtest-input.ts'
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
let xinput: XTestInput | undefined

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

/** Sends input steps over XTest; keys off the keymap's first level go through key(). */
function input (steps: XInputStep[]): Promise<Point> {
  if (!xinput) throw new WorkerError('failure', 'the input connection to the X server is not open')
  return xinput.run(steps, { press: key, reserved: () => typer?.boundKeycodes ?? new Set() })
}

const handlers: { [K in keyof Calls]: (...args: Calls[K]['args']) => Promise<Calls[K]['result']> } = {
  screenSize,
  // Single primitives are one-step plans: every input goes out on one connection, in order,
  // and each answers once X has processed it (the server reads the pointer on another one).
  moveMouse: async (to) => { await input([{ kind: 'move', to }]) },
  cursorPosition: async () => { const { x, y } = await mouse.getPosition(); return { x, y } },
  buttonDown: async (button) => { await input([{ kind: 'button', button, down: true }]) },
  buttonUp: async (button) => { await input([{ kind: 'button', button, down: false }]) },
  wheel: async (dx, dy) => { await input([{ kind: 'wheel', dx: Math.round(dx), dy: Math.round(dy) }]) },
  keyDown: async (keysym) => { await input([{ kind: 'key', keysym, down: true }]) },
  keyUp: async (keysym) => { await input([{ kind: 'key', keysym, down: false }]) },
  input,
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
  xinput = await XTestInput.open(process.env.DISPLAY ?? '')
  xinput.onLost((error) => {
    process.stderr.write(`nut-worker: ${error.message}\n`)
    process.exit(3)
  })
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
      const kind = error instanceof WorkerError ? error.kind : error instanceof UnsupportedAction ? 'unsupported' : typer?.lost || xinput?.lost ? 'unavailable' : 'failure'
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
