/**
 * The scripted agent: it finds what to act on the way a grounding model must — in the
 * accessibility tree (GET /accessibility) or by reading the screenshot (OCR) — always in the
 * coordinates of the screenshot its dialect declares, and sends each step in that dialect.
 * No coordinate is ever written in a task.
 */
import type { CupEnvelope } from '../../src/accessibility/schema.ts'
import { type Dialect, type Step } from './dialects.ts'
import { readScreen, type ScreenLine } from './ocr.ts'

export interface Node {
  id: string
  role: string
  name: string
  value?: string
  bounds?: { x: number, y: number, w: number, h: number }
  states?: string[]
  children?: Node[]
}

export interface Locator {
  /** The top-level window (or dialog) the target is in, by its accessible name. */
  window: RegExp
  role?: string
  name?: string | RegExp
  /** Further conditions, e.g. a state. */
  where?: (node: Node) => boolean
}

const describe = (locator: Locator) => `${locator.role ?? 'node'} ${locator.name ?? ''} in window ${locator.window}`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const onScreen = (node: Node, display: Dialect['display']) => node.bounds !== undefined && node.bounds.w > 0 && node.bounds.h > 0 &&
  node.bounds.x >= 0 && node.bounds.y >= 0 && node.bounds.x < display.width && node.bounds.y < display.height

export class Agent {
  steps = 0
  /** `headers` go with every request: a gateway that wants a token (one in a container) gets it here. */
  constructor (readonly url: string, readonly dialect: Dialect, readonly headers: Record<string, string> = {}) {}

  /** Sends one step in the dialect; throws with the gateway's answer when the dialect says it failed. */
  async do (step: Step): Promise<void> {
    const request = this.dialect.request(step, ++this.steps)
    const response = await fetch(`${this.url}${request.path}`, { method: 'POST', headers: { ...this.headers, 'content-type': request.contentType }, body: request.body })
    const body = await response.json()
    const failure = this.dialect.failure(response.status, body)
    if (failure !== undefined) throw new Error(`${this.dialect.name} ${step.kind} failed: ${failure.slice(0, 500)}`)
  }

  click (at: [number, number]) { return this.do({ kind: 'click', at }) }
  doubleClick (at: [number, number]) { return this.do({ kind: 'double_click', at }) }
  type (text: string) { return this.do({ kind: 'type', text }) }
  key (...keys: string[]) { return this.do({ kind: 'key', keys }) }

  /** The accessibility tree, bounds in the dialect's screenshot space. */
  async tree (): Promise<Node[]> {
    const { width, height } = this.dialect.display
    const response = await fetch(`${this.url}/accessibility?scope=full&format=json&display_width_px=${width}&display_height_px=${height}`, { headers: this.headers })
    if (response.status !== 200) throw new Error(`GET /accessibility: ${response.status} ${await response.text()}`)
    return (await response.json() as CupEnvelope).tree as Node[]
  }

  /** Polls the tree until a node matches (visible, on screen); throws after `timeoutMs`. */
  async find (locator: Locator, timeoutMs = 30_000): Promise<Node> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const node = match(await this.tree().catch(() => []), locator, this.dialect.display)
      if (node) return node
      if (Date.now() > deadline) throw new Error(`not found within ${timeoutMs} ms: ${describe(locator)}`)
      await sleep(400)
    }
  }

  /** Whether a window (or dialog) with this name is in the tree now. */
  async hasWindow (name: RegExp): Promise<boolean> {
    return (await this.tree().catch(() => [])).some((root) => name.test(root.name))
  }

  async waitWindow (name: RegExp, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!await this.hasWindow(name)) {
      if (Date.now() > deadline) throw new Error(`no window ${name} within ${timeoutMs} ms`)
      await sleep(400)
    }
  }

  /**
   * Presses `keys` until the window is gone, as an agent presses again when the screen shows
   * its first press was taken by something else (a completion pop-up takes the first Enter).
   */
  async keyUntilGone (window: RegExp, keys: string[], tries = 3): Promise<void> {
    for (let attempt = 0; attempt < tries; attempt++) {
      await this.key(...keys)
      const deadline = Date.now() + 3000
      while (Date.now() < deadline) {
        if (!await this.hasWindow(window)) return
        await sleep(300)
      }
    }
    throw new Error(`window ${window} still open after pressing ${keys.join('+')} ${tries} times`)
  }

  /** The centre of a node, in the dialect's screenshot pixels. */
  static centre (node: Node): [number, number] {
    const { x, y, w, h } = node.bounds!
    return [Math.round(x + w / 2), Math.round(y + h / 2)]
  }

  async clickOn (locator: Locator, timeoutMs?: number): Promise<Node> {
    const node = await this.find(locator, timeoutMs)
    await this.click(Agent.centre(node))
    return node
  }

  /**
   * Clicks a text field, types into it and looks that the field holds the text, again when it
   * does not, as an agent does when its screenshot shows the field empty (a page still loading
   * takes the focus back from a field clicked too early).
   */
  async fill (field: Locator, text: string, tries = 3): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      await this.clickOn(field)
      await this.key('ctrl', 'a')
      await this.type(text)
      try {
        await this.find({ ...field, where: (node) => node.value === text && (field.where?.(node) ?? true) }, 5000)
        return
      } catch (error) {
        if (attempt >= tries) throw error
      }
    }
  }

  /**
   * Clicks `opener` (a drop-down) and then `choice` in the list it opens; when the list is not
   * on the screen after a click (it closed again, or the click came before the page was ready),
   * clicks the opener again, as an agent does when its screenshot shows no list.
   */
  async pick (opener: Locator, choice: Locator, tries = 3): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      await this.clickOn(opener)
      try {
        await this.clickOn(choice, 5000)
        return
      } catch (error) {
        if (attempt >= tries) throw error
      }
    }
  }

  /** The screenshot as the model is shown it (the dialect's size), read into lines of words. */
  async readScreen (): Promise<ScreenLine[]> {
    const { width, height } = this.dialect.display
    const response = await fetch(`${this.url}/computer?display_width_px=${width}&display_height_px=${height}`,
      { method: 'POST', headers: { ...this.headers, 'content-type': 'application/json' }, body: JSON.stringify({ action: 'take_screenshot' }) })
    const body = await response.json() as { base64_image?: string }
    if (response.status !== 200 || !body.base64_image) throw new Error(`take_screenshot: ${response.status} ${JSON.stringify(body).slice(0, 300)}`)
    return readScreen(Buffer.from(body.base64_image, 'base64'))
  }

  /** Polls the screenshot until a line of text matches; the line and the match. */
  async findOnScreen (pattern: RegExp, timeoutMs = 30_000): Promise<{ line: ScreenLine, match: RegExpExecArray }> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      for (const line of await this.readScreen()) {
        const match = pattern.exec(line.text)
        if (match) return { line, match }
      }
      if (Date.now() > deadline) throw new Error(`no text ${pattern} on the screen within ${timeoutMs} ms`)
      await sleep(500)
    }
  }
}

/** The first node under a matching window that matches the locator and is on the screen. */
export function match (roots: Node[], locator: Locator, display: Dialect['display']): Node | undefined {
  const wanted = (node: Node) => (locator.role === undefined || node.role === locator.role) &&
    (locator.name === undefined || (typeof locator.name === 'string' ? node.name === locator.name : locator.name.test(node.name))) &&
    (locator.where === undefined || locator.where(node)) && onScreen(node, display)
  const visit = (node: Node): Node | undefined => {
    if (wanted(node)) return node
    for (const child of node.children ?? []) {
      const found = visit(child)
      if (found) return found
    }
    return undefined
  }
  for (const root of roots) {
    if (!locator.window.test(root.name)) continue
    const found = visit(root)
    if (found) return found
  }
  return undefined
}
