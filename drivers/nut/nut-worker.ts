/**
 * The child process that holds nut-js. It exists so that when the X server dies — and
 * Xlib calls exit(), or libnut segfaults — only this process goes, never the HTTP server.
 * It answers one request at a time, in order, over the IPC channel.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { Button, keyboard, mouse, Point as NutPoint, Region, screen } from '@nut-tree-fork/nut-js'
import { createRequire } from 'node:module'
import type { MouseButton, Point, RawImage, Rect } from '../../src/driver.ts'
import { asciiKey, KEYSYM_TO_NUT } from './keysym-to-nut.ts'
import type { Calls, Reply, Request } from './protocol.ts'

/** The few native calls nut-js does not expose with the behaviour we need. */
interface LibNut {
  setKeyboardDelay: (ms: number) => void
  keyToggle: (key: string, state: 'down' | 'up', modifiers: string[]) => void
  keyTap: (key: string, modifiers: string[]) => void
  scrollMouse: (x: number, y: number) => void
}
const { libnut } = createRequire(import.meta.url)('@nut-tree-fork/libnut/dist/import_libnut.js') as { libnut: LibNut }

const run = promisify(execFile)
const xdotool = (args: string[]) => run('xdotool', args)

// nut-js waits 100-300 ms before every action by default; we want X's own speed.
mouse.config.autoDelayMs = 0
keyboard.config.autoDelayMs = 0
libnut.setKeyboardDelay(0)

const NUT_BUTTONS: Partial<Record<MouseButton, Button>> = { left: Button.LEFT, right: Button.RIGHT, middle: Button.MIDDLE }
// libnut has no buttons 8/9 ("Invalid mouse button specified"): xdotool sends them through XTest.
const X_BUTTONS: Record<MouseButton, number> = { left: 1, middle: 2, right: 3, back: 8, forward: 9 }

async function button (which: MouseButton, state: 'down' | 'up'): Promise<void> {
  const nut = NUT_BUTTONS[which]
  if (nut === undefined) {
    await xdotool([state === 'down' ? 'mousedown' : 'mouseup', String(X_BUTTONS[which])])
    return
  }
  await (state === 'down' ? mouse.pressButton(nut) : mouse.releaseButton(nut))
}

async function key (keysym: string, state: 'down' | 'up'): Promise<void> {
  const nut = KEYSYM_TO_NUT.get(keysym)
  if (nut === undefined) {
    await xdotool([state === 'down' ? 'keydown' : 'keyup', '--', keysym])
    return
  }
  libnut.keyToggle(nut, state, [])
}

/** ASCII goes key by key through libnut (with Shift where the US layout needs it); the rest through xdotool. */
async function typeText (text: string): Promise<void> {
  let pending = ''
  const flush = async () => {
    if (pending) await xdotool(['type', '--delay', '0', '--', pending])
    pending = ''
  }
  for (const char of text) {
    const ascii = asciiKey(char)
    if (!ascii) { pending += char; continue }
    await flush()
    libnut.keyTap(ascii.key, ascii.shift ? ['shift'] : [])
  }
  await flush()
}

async function screenshot (region?: Rect): Promise<RawImage> {
  const image = region
    ? await screen.grabRegion(new Region(region.x, region.y, region.width, region.height))
    : await screen.grab()
  const rowBytes = image.width * 4
  let data = image.data
  if (image.byteWidth !== rowBytes) {
    // Rows may be padded; the driver contract is tightly packed rows.
    data = Buffer.alloc(rowBytes * image.height)
    for (let row = 0; row < image.height; row++) image.data.copy(data, row * rowBytes, row * image.byteWidth, row * image.byteWidth + rowBytes)
  }
  return { width: image.width, height: image.height, order: 'bgra', data }
}

const handlers: { [K in keyof Calls]: (...args: Calls[K]['args']) => Promise<Calls[K]['result']> } = {
  screenSize: async () => ({ width: await screen.width(), height: await screen.height() }),
  moveMouse: async (point: Point) => { await mouse.setPosition(new NutPoint(point.x, point.y)) },
  cursorPosition: async () => { const { x, y } = await mouse.getPosition(); return { x, y } },
  buttonDown: (which) => button(which, 'down'),
  buttonUp: (which) => button(which, 'up'),
  // libnut's scrollMouse: positive y is up, positive x is LEFT (button 6) — the reverse of
  // our contract (dy > 0 down, dx > 0 right), so both are negated.
  wheel: async (dx, dy) => { libnut.scrollMouse(-dx, -dy) },
  keyDown: (keysym) => key(keysym, 'down'),
  keyUp: (keysym) => key(keysym, 'up'),
  typeText,
  screenshot,
}

function send (reply: Reply): void { process.send!(reply) }

let chain = Promise.resolve()
process.on('message', (request: Request) => {
  chain = chain.then(async () => {
    try {
      const handler = handlers[request.op] as (...args: unknown[]) => Promise<unknown>
      send({ id: request.id, ok: true, value: await handler(...request.args) })
    } catch (error) {
      const message = error instanceof Error ? (error as Error & { stderr?: string }).stderr?.trim() || error.message : String(error)
      send({ id: request.id, ok: false, message })
    }
  })
})
process.on('disconnect', () => process.exit(0))

// Touch the display once so a broken one fails here, before 'ready'.
await mouse.getPosition()
send({ ready: true })
