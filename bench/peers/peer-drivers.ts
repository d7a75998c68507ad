/**
 * How each peer acts, as its own code does it (bench/peers.ts times them side by side):
 * - **ours**: one request to `POST /computer` over the bench's keep-alive client;
 * - **cua computer-server** (PyPI `cua-computer-server`): its HTTP `POST /cmd` (the fallback
 *   of its WebSocket, the same handlers), a scroll being `move_cursor` then `scroll_down` as
 *   its client sends them;
 * - **OSWorld (pyautogui per call)**: a `python -c "import pyautogui; …"` process per action,
 *   as OSWorld's guest `/execute` runs the model's code (a screenshot too, here);
 * - **Anthropic demo** (anthropic-quickstarts computer-use-demo, tools/computer.py): an
 *   `xdotool` process per action, then its 2 s `_screenshot_delay` and a `scrot` screenshot,
 *   which every action but `type` returns (typing: 50-character chunks at `--delay 12`, then
 *   the screenshot without the sleep);
 * - **OpenAI sample** (openai-cua-sample-app, computers/docker.py and agent.py): an `xdotool`
 *   process per action (a scroll is a process per notch), then `import -window root png:-`,
 *   the screenshot its loop sends back after every action, with no sleep.
 * Each action answers when the peer's call returns; bench/peers.ts checks its effect after.
 */
import { execFile, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { promisify } from 'node:util'
import { client } from '../http-client.ts'

const run = promisify(execFile)

export interface PeerDriver {
  name: string
  click (x: number, y: number): Promise<void>
  doubleClick (x: number, y: number): Promise<void>
  /** The left button pressed at `from`, released at `to`. */
  drag (from: [number, number], to: [number, number]): Promise<void>
  type (text: string): Promise<void>
  keyCombo (keys: string[]): Promise<void>
  /** `notches` down at (x, y). */
  scroll (x: number, y: number, notches: number): Promise<void>
  /** A PNG of the whole screen. */
  screenshot (): Promise<Buffer>
  close (): void
}

/** The Anthropic demo's `_screenshot_delay`: slept after an action, before its screenshot. */
export const ANTHROPIC_SCREENSHOT_DELAY_MS = 2000

export function oursDriver (port: number): PeerDriver {
  const http = client(port)
  const act = async (body: unknown) => {
    const answer = await http.post('/computer', body)
    if (answer.status !== 200) throw new Error(`ours: ${answer.status} ${answer.body.slice(0, 200)}`)
    return JSON.parse(answer.body) as { base64_image?: string | null }
  }
  return {
    name: 'ours',
    click: async (x, y) => { await act({ action: 'click_mouse', button: 'left', coordinates: [x, y] }) },
    doubleClick: async (x, y) => { await act({ action: 'click_mouse', button: 'left', coordinates: [x, y], num_clicks: 2 }) },
    drag: async (from, to) => { await act({ action: 'drag_mouse', path: [from, to] }) },
    type: async (text) => { await act({ action: 'type_text', text }) },
    keyCombo: async (keys) => { await act({ action: 'press_key', keys }) },
    scroll: async (x, y, notches) => { await act({ action: 'scroll', coordinates: [x, y], delta_y: notches }) },
    screenshot: async () => Buffer.from((await act({ action: 'take_screenshot' })).base64_image ?? '', 'base64'),
    close: () => http.close(),
  }
}

/**
 * cua's `POST /cmd` answer: one `data: {json}` line; a handler that failed still answers 200,
 * with success false and its error, which is thrown here.
 */
export function cuaResult (command: string, status: number, body: string): { image_data?: string } {
  const line = /data: (.*)/.exec(body)?.[1]
  const result = line ? JSON.parse(line) as { success: boolean, error?: string, image_data?: string } : undefined
  if (status !== 200 || !result?.success) throw new Error(`cua ${command}: ${status} ${result?.error ?? body.slice(0, 200)}`)
  return result
}

export function cuaDriver (port: number): PeerDriver {
  const http = client(port)
  const cmd = async (command: string, params: Record<string, unknown> = {}) => {
    const answer = await http.post('/cmd', { command, params })
    return cuaResult(command, answer.status, answer.body)
  }
  return {
    name: 'cua computer-server',
    click: async (x, y) => { await cmd('left_click', { x, y }) },
    // Its handlers: pyautogui.doubleClick(interval=0.1); moveTo then dragTo(duration=0.5).
    doubleClick: async (x, y) => { await cmd('double_click', { x, y }) },
    drag: async ([x1, y1], [x2, y2]) => { await cmd('drag', { start_x: x1, start_y: y1, end_x: x2, end_y: y2 }) },
    type: async (text) => { await cmd('type_text', { text }) },
    keyCombo: async (keys) => { await cmd('hotkey', { keys }) },
    scroll: async (x, y, notches) => { await cmd('move_cursor', { x, y }); await cmd('scroll_down', { clicks: notches }) },
    screenshot: async () => Buffer.from((await cmd('screenshot')).image_data ?? '', 'base64'),
    close: () => http.close(),
  }
}

/** A process with `env`, its stdout as bytes; a non-zero exit is an error with its stderr. */
function runBytes (file: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    let err = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString() })
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve(Buffer.concat(out))
      else reject(new Error(`${file} ${args[0] ?? ''}: exit ${code ?? signal}: ${err.trim().split('\n').pop() ?? ''}`))
    })
  })
}

/**
 * The code OSWorld's guest would be given for each action (`python -c CODE`). A JSON string is
 * a Python string literal for the text the bench types (no lone surrogates).
 */
export const pyautoguiCode = {
  click: (x: number, y: number) => `import pyautogui; pyautogui.click(${x}, ${y})`,
  doubleClick: (x: number, y: number) => `import pyautogui; pyautogui.doubleClick(${x}, ${y})`,
  // As OSWorld's models write a drag: to the start, then dragTo with a duration (its default 0 would be a jump).
  drag: ([x1, y1]: [number, number], [x2, y2]: [number, number]) => `import pyautogui; pyautogui.moveTo(${x1}, ${y1}); pyautogui.dragTo(${x2}, ${y2}, duration=0.5, button="left")`,
  type: (text: string) => `import pyautogui; pyautogui.typewrite(${JSON.stringify(text)})`,
  keyCombo: (keys: string[]) => `import pyautogui; pyautogui.hotkey(${keys.map((k) => JSON.stringify(k)).join(', ')})`,
  scroll: (x: number, y: number, notches: number) => `import pyautogui; pyautogui.scroll(${-notches}, x=${x}, y=${y})`,
  screenshot: () => 'import pyautogui; import io, sys; b = io.BytesIO(); pyautogui.screenshot().save(b, "PNG"); sys.stdout.buffer.write(b.getvalue())',
}

/** OSWorld's guest runs `python -c CODE` per action; the model's code imports pyautogui. */
export function pyautoguiDriver (python: string, env: NodeJS.ProcessEnv): PeerDriver {
  const py = (code: string) => runBytes(python, ['-c', code], env)
  return {
    name: 'OSWorld pyautogui per call',
    click: async (x, y) => { await py(pyautoguiCode.click(x, y)) },
    doubleClick: async (x, y) => { await py(pyautoguiCode.doubleClick(x, y)) },
    drag: async (from, to) => { await py(pyautoguiCode.drag(from, to)) },
    type: async (text) => { await py(pyautoguiCode.type(text)) },
    keyCombo: async (keys) => { await py(pyautoguiCode.keyCombo(keys)) },
    scroll: async (x, y, notches) => { await py(pyautoguiCode.scroll(x, y, notches)) },
    screenshot: () => py(pyautoguiCode.screenshot()),
    close: () => {},
  }
}

const chunks = (text: string, size: number) => {
  const points = [...text]
  return Array.from({ length: Math.ceil(points.length / size) }, (_, i) => points.slice(i * size, (i + 1) * size).join(''))
}

/** The Anthropic demo: xdotool, the 2 s settle, scrot (no resize: 1280x800 is its WXGA target already). */
export function anthropicDriver (env: NodeJS.ProcessEnv): PeerDriver {
  const xdotool = (...args: string[]) => run('xdotool', args, { env })
  const screenshot = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cg-bench-scrot-'))
    try {
      const path = join(dir, 'screenshot.png')
      await run('scrot', ['-p', path], { env })
      return await readFile(path)
    } finally { await rm(dir, { recursive: true, force: true }) }
  }
  const thenScreenshot = async () => { await delay(ANTHROPIC_SCREENSHOT_DELAY_MS); await screenshot() }
  return {
    name: 'Anthropic demo (xdotool)',
    click: async (x, y) => { await xdotool('mousemove', '--sync', String(x), String(y), 'click', '1'); await thenScreenshot() },
    // computer.py: double_click is `click --repeat 2 --delay 10 1`; left_click_drag presses, moves, releases.
    doubleClick: async (x, y) => { await xdotool('mousemove', '--sync', String(x), String(y), 'click', '--repeat', '2', '--delay', '10', '1'); await thenScreenshot() },
    drag: async ([x1, y1], [x2, y2]) => { await xdotool('mousemove', '--sync', String(x1), String(y1), 'mousedown', '1', 'mousemove', '--sync', String(x2), String(y2), 'mouseup', '1'); await thenScreenshot() },
    type: async (text) => {
      for (const chunk of chunks(text, 50)) await xdotool('type', '--delay', '12', '--', chunk)
      await screenshot()
    },
    keyCombo: async (keys) => { await xdotool('key', '--', keys.join('+')); await thenScreenshot() },
    scroll: async (x, y, notches) => { await xdotool('mousemove', '--sync', String(x), String(y), 'click', '--repeat', String(notches), '5'); await thenScreenshot() },
    screenshot,
    close: () => {},
  }
}

/** The OpenAI sample: xdotool as computers/docker.py runs it, then the loop's screenshot. */
export function openaiDriver (env: NodeJS.ProcessEnv): PeerDriver {
  const xdotool = (...args: string[]) => run('xdotool', args, { env })
  const screenshot = () => runBytes('import', ['-window', 'root', 'png:-'], env)
  return {
    name: 'OpenAI sample (xdotool)',
    click: async (x, y) => { await xdotool('mousemove', String(x), String(y), 'click', '1'); await screenshot() },
    // docker.py: double_click is `click --repeat 2 1`; drag a process to press at the start, one per point, one to release.
    doubleClick: async (x, y) => { await xdotool('mousemove', String(x), String(y), 'click', '--repeat', '2', '1'); await screenshot() },
    drag: async ([x1, y1], [x2, y2]) => {
      await xdotool('mousemove', String(x1), String(y1), 'mousedown', '1')
      await xdotool('mousemove', String(x2), String(y2))
      await xdotool('mouseup', '1')
      await screenshot()
    },
    type: async (text) => { await xdotool('type', '--', text); await screenshot() },
    keyCombo: async (keys) => { await xdotool('key', keys.join('+')); await screenshot() },
    scroll: async (x, y, notches) => {
      await xdotool('mousemove', String(x), String(y))
      for (let i = 0; i < notches; i++) await xdotool('click', '5')
      await screenshot()
    },
    screenshot,
    close: () => {},
  }
}
