/**
 * drivers/x11/focus-quiet.ts on a bare Xvfb, with a focused window of the test's own (a
 * top-level window with a child, as xterm has): a watch counts what is drawn after it began,
 * in the child too; its wait ends `quietMs` after the last drawing and never before
 * `notBefore`. A window that draws nothing, or goes away, ends the wait at `maxMs`, never with
 * an error, and the watcher serves the next watch.
 */
import t from 'tap'
import type { XClient } from 'x11'
import { createClient } from '../drivers/x11/connect.ts'
import { FocusQuiet } from '../drivers/x11/focus-quiet.ts'
import { startDesktop } from './helpers/desktop.ts'

type Window = { CreateWindow (id: number, parent: number, x: number, y: number, width: number, height: number, border: number, depth: number, klass: number, visual: number, values: object): void }
type AppClient = XClient & Window & {
  AllocID (): number
  MapWindow (id: number): void
  DestroyWindow (id: number): void
  SetInputFocus (id: number, revertTo: number): void
  CreateGC (id: number, drawable: number, values: object): void
  PolyFillRectangle (drawable: number, gc: number, rectangles: number[]): void
}

const { display } = await startDesktop(t, '640x480x24')
const quiet = await FocusQuiet.open(display)
t.teardown(() => quiet.close())

/** A client with a focused 300x200 window and a child in it; `draw` fills a square in the child. */
async function focusedWindow () {
  const { X, root, white, black } = await new Promise<{ X: AppClient, root: number, white: number, black: number }>((resolve, reject) => {
    const client = createClient(display, (error, info) => {
      if (error) { reject(error); return }
      const screen = info.screen[0]!
      resolve({ X: client as AppClient, root: screen.root, white: screen.white_pixel, black: screen.black_pixel })
    })
  })
  t.teardown(() => X.terminate())
  const top = X.AllocID()
  X.CreateWindow(top, root, 0, 0, 300, 200, 0, 0, 0, 0, { backgroundPixel: white })
  const child = X.AllocID()
  X.CreateWindow(child, top, 10, 10, 100, 100, 0, 0, 0, 0, { backgroundPixel: black })
  X.MapWindow(child)
  X.MapWindow(top)
  await X.sync()
  X.SetInputFocus(top, 1)
  const gc = X.AllocID()
  X.CreateGC(gc, child, { foreground: white })
  await X.sync()
  return {
    draw: async () => { X.PolyFillRectangle(child, gc, [0, 0, 20, 20]); await X.sync() },
    destroy: async () => { X.DestroyWindow(top); await X.sync() },
  }
}

const later = (ms: number, action: () => Promise<void>) => new Promise<void>((resolve, reject) => setTimeout(() => action().then(resolve, reject), ms))

t.test('what the window draws after the watch began holds the wait until it has stopped', async (t) => {
  const app = await focusedWindow()
  const watch = await quiet.watch()
  t.teardown(() => watch.end())
  const started = Date.now()
  // Drawn at ~100 and ~250 ms, the second well within the first's 300 ms of quiet: quiet from ~550 ms.
  const drawing = Promise.all([later(100, app.draw), later(250, app.draw)])
  const caughtUp = await watch.quiet({ quietMs: 300, notBefore: started, maxMs: 3000 })
  const waited = Date.now() - started
  await drawing
  t.equal(caughtUp, true, 'it caught up')
  t.ok(waited >= 540 && waited < 3000, `waited ${waited} ms: past the last drawing's quiet time, before the deadline`)
})

t.test('the wait is never over before notBefore', async (t) => {
  const app = await focusedWindow()
  const watch = await quiet.watch()
  t.teardown(() => watch.end())
  const started = Date.now()
  await app.draw()
  t.equal(await watch.quiet({ quietMs: 20, notBefore: started + 400, maxMs: 3000 }), true)
  t.ok(Date.now() - started >= 400, `waited ${Date.now() - started} ms`)
})

t.test('a window that draws nothing after the watch began ends the wait at maxMs', async (t) => {
  const app = await focusedWindow()
  // Drawn before the watch: not what the keys made it draw. Nor is the new damage object's own report of its window.
  await app.draw()
  const watch = await quiet.watch()
  t.teardown(() => watch.end())
  const started = Date.now()
  t.equal(await watch.quiet({ quietMs: 50, notBefore: started, maxMs: 300 }), false, 'not caught up')
  const waited = Date.now() - started
  t.ok(waited >= 300 && waited < 2000, `waited ${waited} ms`)
})

t.test('a window that goes away under the watch ends the wait at maxMs, and the next watch works', async (t) => {
  const gone = await focusedWindow()
  const first = await quiet.watch()
  await gone.destroy()
  t.equal(await first.quiet({ quietMs: 50, notBefore: Date.now(), maxMs: 300 }), false, 'no error, not caught up')
  first.end()
  const app = await focusedWindow()
  const next = await quiet.watch()
  t.teardown(() => next.end())
  const drawing = later(50, app.draw)
  t.equal(await next.quiet({ quietMs: 50, notBefore: Date.now(), maxMs: 3000 }), true, 'the next window is watched')
  await drawing
})
