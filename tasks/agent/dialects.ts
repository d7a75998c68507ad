/**
 * The three dialects the scripted agent speaks, each with the screenshot size its model is told
 * the screen has (never the real one, so every coordinate goes through the gateway's scaling):
 * Claude's computer tool, OpenAI's computer_call and pyautogui code as the OSWorld baselines write it.
 * A step is turned into the request that model would send; the answer is judged by what that
 * dialect calls a failure.
 */

export type Step =
  | { kind: 'click', at: [number, number] }
  | { kind: 'double_click', at: [number, number] }
  | { kind: 'type', text: string }
  /** Keys pressed together, in the gateway's canonical names: ['ctrl', 's'], ['enter']. */
  | { kind: 'key', keys: string[] }

export interface Request { path: string, contentType: string, body: string }

export interface Dialect {
  name: string
  /** The screenshot size the model is shown; coordinates it sends are pixels of this. */
  display: { width: number, height: number }
  request: (step: Step, seq: number) => Request
  /** Why the answer is a failure in this dialect's terms, or undefined when the step ran. */
  failure: (status: number, body: unknown) => string | undefined
}

/** How a step is said in a dialect: its body and content type. */
type Say = (step: Step, seq: number) => Omit<Request, 'path'>

const json = (payload: unknown) => ({ contentType: 'application/json', body: JSON.stringify(payload) })
/** Any answer but a 200 is a failure; some dialects add their own. */
const notOk = (status: number, body: unknown) => status !== 200 ? `${status} ${JSON.stringify(body)}` : undefined

/** A dialect posting to `route`, with the model's display size and no screenshot in the query. */
function dialect (name: string, display: Dialect['display'], route: string, say: Say, failure: Dialect['failure'] = notOk): Dialect {
  const path = `${route}${route.includes('?') ? '&' : '?'}display_width_px=${display.width}&display_height_px=${display.height}&screenshot=false`
  return { name, display, request: (step, seq) => ({ path, ...say(step, seq) }), failure }
}

/** xdotool key names, which Claude's tool uses (`ctrl+s`, `Return`, `F2`). */
const XDOTOOL: Record<string, string> = { enter: 'Return', escape: 'Escape', tab: 'Tab', backspace: 'BackSpace', delete: 'Delete', f2: 'F2', end: 'End', home: 'Home', down: 'Down', up: 'Up' }
/** Playwright-style names, which OpenAI's keypress uses. */
const OPENAI_KEYS: Record<string, string> = { ctrl: 'CTRL', shift: 'SHIFT', alt: 'ALT', enter: 'ENTER', escape: 'ESC', tab: 'TAB', backspace: 'BACKSPACE', delete: 'DELETE', f2: 'F2', end: 'END', home: 'HOME', down: 'ArrowDown', up: 'ArrowUp' }

export const claude = dialect('claude', { width: 1024, height: 640 }, '/computer/anthropic?tool_version=computer_20250124', (step) => {
  switch (step.kind) {
    case 'click': return json({ action: 'left_click', coordinate: step.at })
    case 'double_click': return json({ action: 'double_click', coordinate: step.at })
    case 'type': return json({ action: 'type', text: step.text })
    case 'key': return json({ action: 'key', text: step.keys.map((key) => XDOTOOL[key] ?? key).join('+') })
  }
}, (status, body) => notOk(status, body) ?? ((body as { is_error?: boolean }).is_error ? JSON.stringify(body) : undefined))

export const openai = dialect('openai', { width: 1120, height: 700 }, '/computer/openai', (step, seq) => {
  const call = (action: object) => json({ type: 'computer_call', id: `cu_${seq}`, call_id: `call_${seq}`, status: 'completed', pending_safety_checks: [], action })
  switch (step.kind) {
    case 'click': return call({ type: 'click', button: 'left', x: step.at[0], y: step.at[1] })
    case 'double_click': return call({ type: 'double_click', x: step.at[0], y: step.at[1] })
    case 'type': return call({ type: 'type', text: step.text })
    case 'key': return call({ type: 'keypress', keys: step.keys.map((key) => OPENAI_KEYS[key] ?? key.toUpperCase()) })
  }
})

/** A Python string literal for any text (JSON's escapes are Python's for these). */
const py = (text: string) => JSON.stringify(text)

export const pyautogui = dialect('pyautogui', { width: 960, height: 600 }, '/computer/pyautogui?coordinates=absolute', (step) => {
  const code = (line: string) => ({ contentType: 'text/plain', body: `\`\`\`python\n${line}\n\`\`\`` })
  switch (step.kind) {
    case 'click': return code(`pyautogui.click(${step.at[0]}, ${step.at[1]})`)
    case 'double_click': return code(`pyautogui.doubleClick(${step.at[0]}, ${step.at[1]})`)
    case 'type': return code(`pyautogui.write(${py(step.text)})`)
    case 'key': return code(step.keys.length === 1 ? `pyautogui.press(${py(step.keys[0]!)})` : `pyautogui.hotkey(${step.keys.map(py).join(', ')})`)
  }
})

export const DIALECTS: readonly Dialect[] = [claude, openai, pyautogui]
