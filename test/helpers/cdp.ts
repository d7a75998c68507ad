/**
 * Headless Chromium driven over the DevTools protocol: open a page, run script in it, take a
 * screenshot of it, send it mouse events, close its tab. The browser is a process of the
 * test's own (spawnOwned), in a throwaway profile.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { chromiumBinary, spawnOwned } from './processes.ts'

interface TestContext { teardown: (fn: () => unknown) => void }

interface Pending { resolve: (value: any) => void, reject: (error: Error) => void }

export interface Page {
  targetId: string
  /** Runs `expression` in the page (promises awaited) and returns its value. */
  evaluate: <T = unknown>(expression: string) => Promise<T>
  /** A PNG of the viewport, or of `clip` (CSS pixels). */
  screenshot: (clip?: { x: number, y: number, width: number, height: number }) => Promise<Buffer>
  /** Input.dispatchMouseEvent: mousePressed / mouseReleased / mouseMoved at viewport (x, y). */
  mouse: (type: 'mousePressed' | 'mouseReleased' | 'mouseMoved', x: number, y: number, buttons?: number) => Promise<void>
  /** Input.dispatchKeyEvent for a key without text (a modifier, an arrow): down or up. */
  key: (type: 'rawKeyDown' | 'keyUp', key: string, code: string, keyCode: number) => Promise<void>
  navigate: (url: string) => Promise<void>
  close: () => Promise<void>
}

export interface Browser {
  open: (url: string, viewport: { width: number, height: number }) => Promise<Page>
}

export async function startBrowser (t: TestContext, extraArgs: string[] = []): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'cg-cdp-'))
  t.teardown(() => rm(profile, { recursive: true, force: true }))
  const chromium = spawnOwned(t, chromiumBinary(), [
    '--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, '--remote-debugging-port=0',
    ...extraArgs, 'about:blank',
  ], { stdio: ['ignore', 'ignore', 'pipe'], group: true })
  const endpoint = await new Promise<string>((resolve, reject) => {
    let text = ''
    const timer = setTimeout(() => reject(new Error(`Chromium did not open its DevTools port within 20 s: ${text.slice(-500)}`)), 20_000)
    chromium.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(text)
      if (match) { clearTimeout(timer); resolve(match[1]!) }
    })
    chromium.once('exit', () => { clearTimeout(timer); reject(new Error(`Chromium exited: ${text.slice(-500)}`)) })
  })
  const socket = new WebSocket(endpoint, { perMessageDeflate: false })
  await new Promise((resolve, reject) => { socket.once('open', resolve); socket.once('error', reject) })
  t.teardown(() => socket.close())
  let nextId = 1
  const pending = new Map<number, Pending>()
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number, result?: unknown, error?: { message: string } }
    if (message.id === undefined) return
    const waiter = pending.get(message.id)
    pending.delete(message.id)
    if (message.error) waiter?.reject(new Error(message.error.message))
    else waiter?.resolve(message.result)
  })
  const send = <T = any>(method: string, params: object = {}, sessionId?: string): Promise<T> => new Promise((resolve, reject) => {
    const id = nextId++
    pending.set(id, { resolve, reject })
    socket.send(JSON.stringify({ id, method, params, ...(sessionId && { sessionId }) }))
  })

  return {
    async open (url, viewport) {
      const { targetId } = await send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' })
      const { sessionId } = await send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true })
      const call = <T = any>(method: string, params: object = {}) => send<T>(method, params, sessionId)
      await call('Emulation.setDeviceMetricsOverride', { ...viewport, deviceScaleFactor: 1, mobile: false })
      const page: Page = {
        targetId,
        async evaluate (expression) {
          const result = await call<{ result: { value: any }, exceptionDetails?: { text: string, exception?: { description?: string } } }>(
            'Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true })
          if (result.exceptionDetails) throw new Error(result.exceptionDetails.exception?.description ?? result.exceptionDetails.text)
          return result.result.value
        },
        async screenshot (clip) {
          const { data } = await call<{ data: string }>('Page.captureScreenshot', { format: 'png', ...(clip && { clip: { ...clip, scale: 1 } }) })
          return Buffer.from(data, 'base64')
        },
        async mouse (type, x, y, buttons = 0) {
          await call('Input.dispatchMouseEvent', {
            type, x, y, buttons, clickCount: type === 'mouseMoved' ? 0 : 1, ...(type !== 'mouseMoved' && { button: 'left' }),
          })
        },
        async key (type, key, code, keyCode) {
          await call('Input.dispatchKeyEvent', { type, key, code, windowsVirtualKeyCode: keyCode, nativeVirtualKeyCode: keyCode })
        },
        async navigate (target) {
          await call('Page.navigate', { url: target })
        },
        async close () {
          await send('Target.closeTarget', { targetId })
        },
      }
      await page.navigate(url)
      return page
    },
  }
}
