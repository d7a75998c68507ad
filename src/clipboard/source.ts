/**
 * The contract of a desktop's clipboard (get_clipboard, set_clipboard): the X selections
 * CLIPBOARD (what ctrl+c / ctrl+v use) and PRIMARY (the last selected text, pasted by the
 * middle button). A desktop supplies it (drivers/x11/clipboard.ts, drivers/fake); the executor
 * only reads and sets it, through the same queue as input.
 */
export type Selection = 'clipboard' | 'primary'

/** What a selection holds. Nobody owning it reads as empty, never as an error. */
export type ClipboardContent =
  | { kind: 'empty' }
  | { kind: 'text', text: string }
  | { kind: 'image', png: Buffer }

export interface ClipboardSource {
  /**
   * What `selection` holds: text when its owner offers text (or `prefer` is 'text'), else a
   * PNG image when it offers one, else empty. Rejects with 413 past the byte bound.
   */
  read: (selection: Selection, prefer?: 'text' | 'image') => Promise<ClipboardContent>
  /**
   * Makes the desktop own `selection` with `content`, served to every application that pastes
   * until something else takes it; resolves once a paste would get exactly `content`.
   */
  write: (selection: Selection, content: Exclude<ClipboardContent, { kind: 'empty' }>) => Promise<void>
  /** Ends whatever serves the selections. Safe to call twice. */
  close: () => Promise<void>
}
