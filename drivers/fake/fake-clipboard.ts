/**
 * The fake desktop's clipboard: the selections in memory, for tests of what sits above the
 * desktop (the actions, MCP, batches). It proves nothing about X: drivers/x11/clipboard.ts is
 * tested on a real Xvfb.
 */
import type { ClipboardContent, ClipboardSource, Selection } from '../../src/clipboard/source.ts'
import { TooLarge } from '../../src/errors/errors.ts'

export class FakeClipboard implements ClipboardSource {
  readonly #maxBytes: number
  readonly #held = new Map<Selection, Exclude<ClipboardContent, { kind: 'empty' }>>()

  constructor (maxBytes = 10 * 1024 * 1024) {
    this.#maxBytes = maxBytes
  }

  async read (selection: Selection, prefer?: 'text' | 'image'): Promise<ClipboardContent> {
    void prefer
    return this.#held.get(selection) ?? { kind: 'empty' }
  }

  async write (selection: Selection, content: Exclude<ClipboardContent, { kind: 'empty' }>): Promise<void> {
    const size = content.kind === 'text' ? Buffer.byteLength(content.text) : content.png.length
    if (size > this.#maxBytes) throw new TooLarge(`the clipboard content is ${size} bytes, over the limit of ${this.#maxBytes} (--max-clipboard-bytes)`)
    this.#held.set(selection, content)
  }

  async close (): Promise<void> {
    this.#held.clear()
  }
}
