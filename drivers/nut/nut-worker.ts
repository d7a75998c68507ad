/**
 * The nut driver's child process (forked by NutDriver, DISPLAY set). It exists so that when
 * the X server dies — Xlib then calls exit() if nut-js is loaded, or libnut segfaults, and the
 * pure-JS connections exit this process on purpose — only this process goes, never the HTTP
 * server. It answers requests one at a time, in arrival order.
 *
 * Input does not go through nut-js: each nut-js call is a blocking native call with a sync of
 * its own, three for a click. A whole input plan with keys (a combo, a shifted click) arrives
 * as one message (the server sends plans without keys over its own XTest connection) and goes out as XTest requests on one node-x11 connection, with one round trip at
 * the end (drivers/x11/xtest-input.ts): every button including back/forward (8/9), the wheel,
 * and keys on the first level of the live keymap. Other keys come back here (key()): XTest on
 * a spare keycode bound to them, else `xdotool keydown/keyup <keysym>`.
 * Text: nut-js types shifted punctuation unshifted and drops non-ASCII, xdotool type loses
 * characters (feasibility §4), so all text goes through TextTyper (drivers/x11): XTest on
 * the live keymap, spare keycodes bound for the rest — exact on any layout.
 */
import { execFile } from 'node:child_process'
import type { Point, RawImage, Rect, Size } from '../../src/driver/driver.ts'
import { WorkerError, type Calls, type Command, type Reply } from './protocol.ts'
import { keysymCode } from '../x11/keysym-codes.ts'
import { NoSpareKeycode, TextTyper } from '../x11/text-typer.ts'
import { XTestInput, type XInputStep } from '../x11/xtest-input.ts'
import { UnsupportedAction } from '../../src/errors/errors.ts'

/**
 * nut-js, loaded on first use: only the screenshot fallback needs it (when the server could not
 * read the screen itself). Loading it costs ~30 MB and ~0.3–0.6 s per worker.
 */
let nutLoading: Promise<typeof import('@nut-tree-fork/nut-js')> | undefined
function nutjs (): Promise<typeof import('@nut-tree-fork/nut-js')> {
  nutLoading ??= import('@nut-tree-fork/nut-js').then((nut) => {
    // nut-js sleeps 100 ms (mouse) and 300 ms (keyboard) before actions by default, inside
    // blocking native calls; the server wants X's own speed and adds pacing itself if needed.
    nut.mouse.config.autoDelayMs = 0
    nut.keyboard.config.autoDelayMs = 0
    return nut
  })
  return nutLoading
}

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

/**
 * A key XTestInput does not press itself: one no keycode carries on its first level.
 */
async function key (keysym: string, state: 'down' | 'up'): Promise<void> {
  // One no keycode carries (¥ on a us layout), or one on a spare keycode the typer bound:
  // XTest on a spare keycode bound to it and left bound. Not
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
  if (!xinput) throw new WorkerError('failure', 'the input connection to the X server is not open')
  return { ...xinput.size }
}

async function screenshot (region?: Rect): Promise<RawImage> {
  const { screen, Region } = await nutjs()
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
  // Single keys are one-step plans: every input goes out on one connection, in order, and
  // each answers once X has processed it (the server reads the pointer on another one).
  cursorPosition: () => xinput ? xinput.pointer() : Promise.reject(new WorkerError('failure', 'the input connection to the X server is not open')),
  keyDown: async (keysym) => { await input([{ kind: 'key', keysym, down: true }]) },
  keyUp: async (keysym) => { await input([{ kind: 'key', keysym, down: false }]) },
  input,
  typeText,
  screenshot,
}

function send (reply: Reply): void {
  process.send!(reply)
}

/** Connects to the display (XTest and the typer's connection), so a broken one fails here, before 'ready'. */
async function connect (): Promise<void> {
  xinput = await XTestInput.open(process.env.DISPLAY ?? '')
  typer = await TextTyper.open(process.env.DISPLAY ?? '')
  xinput.onLost((error) => {
    process.stderr.write(`nut-worker: ${error.message}\n`)
    process.exit(3)
  })
  // These connections end by themselves only when X went away or stopped answering (their
  // requests have deadlines): nut-js' own connection, if loaded, is as good as gone, and a call
  // blocked in it would never return. Exiting tells the server now.
  typer.onLost((error) => {
    process.stderr.write(`nut-worker: ${error.message}\n`)
    process.exit(3)
  })
  send({ ready: true, notes: [] })
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

// Loaded (nut-js is not, until a screenshot needs it); no display has been touched yet.
send({ loaded: true })
