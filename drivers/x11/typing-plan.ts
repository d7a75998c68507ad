/**
 * Plans exact typing of any text on the live keymap (feasibility §4b). A character whose
 * keysym sits on the first or second level of some keycode is pressed there (with Shift for
 * the second): that is every character of the layout, on any layout, with no remapping. Every
 * other character is bound to a spare keycode (one with no keysyms, or one of VENDOR_SPARE_KEYS)
 * on both levels, so Shift and case conversion cannot change it. Spare keycodes are few, so
 * text with many distinct such characters is typed in phases: bind a batch, press its keys,
 * and only rebind once the applications have read the keys pressed under the previous binding
 * (the typer pauses).
 */
import { keysymsFor, RETURN, SHIFT_L, TAB, unicodeKeysym } from './char-keysyms.ts'

export interface KeyboardMapping {
  minKeycode: number
  /** rows[i] are the keysyms of keycode minKeycode + i (0 = NoSymbol). */
  rows: number[][]
}

export interface Stroke {
  keycode: number
  shift: boolean
}

export interface Phase {
  /** Spare keycodes to (re)bind before this phase's strokes: both levels, never one empty. */
  bind: Array<{ keycode: number, keysyms: [number, number] }>
  strokes: Stroke[]
}

/** A spare keycode's binding: [level 1, level 2] keysyms. */
export type Bound = Map<number, [number, number]>

export interface LiveKeys {
  /** keysym → how to press it on the keymap as the layout defines it. */
  strokes: Map<number, Stroke>
  /** Keycodes free to bind: those with no keysym at all, then those with only VENDOR_SPARE_KEYS keys. */
  spare: number[]
  /** The keysyms of the vendor keycodes among `spare` not bound by us, to give them back on close. */
  vendor: Map<number, number[]>
  shiftKeycode: number | undefined
  /** Keypad keysyms on a NumLock level: on the keymap, though not as a stroke. */
  numLockLevel: Set<number>
}

/**
 * Reads a keyboard mapping into what the planner needs. `bound` (spare keycode → keysym) is
 * what earlier typing left bound: those keycodes are still spare, unless the keymap was
 * replaced since (setxkbmap), in which case they are dropped from `bound`.
 */
export function liveKeys ({ minKeycode, rows }: KeyboardMapping, bound: Bound): LiveKeys {
  const strokes = new Map<number, Stroke>()
  const spare: number[] = []
  const vendorSpare: number[] = []
  const vendor = new Map<number, number[]>()
  const numLockLevel = new Set<number>()
  let shiftKeycode: number | undefined
  for (const [keycode, [first, second]] of bound) {
    const row = rows[keycode - minKeycode]
    // The server may report the binding repeated for the second group: [a, b, a, b, 0, …],
    // and, once XKB has rebuilt the map from core keysyms (xmodmap on another key does), a
    // keysym with no case on one level only: [F24, 0, F24, 0, …].
    const ours = row && row[0] === first && row.every((sym) => sym === 0 || sym === first || sym === second)
    if (!ours) bound.delete(keycode)
  }
  rows.forEach((row, i) => {
    const keycode = minKeycode + i
    if (bound.has(keycode) || row.every((sym) => sym === 0)) { spare.push(keycode); return }
    if (row.every((sym) => sym === 0 || VENDOR_SPARE.has(sym))) {
      vendorSpare.push(keycode)
      vendor.set(keycode, row)
    }
    // Level 1 everywhere before level 2 anywhere: 'a' must not be typed as Shift+something.
    if (row[0] && !strokes.has(row[0])) strokes.set(row[0], { keycode, shift: false })
    if (row[0] === SHIFT_L) shiftKeycode ??= keycode
  })
  rows.forEach((row, i) => {
    const upper = row[1]
    if (bound.has(minKeycode + i)) return
    if (!upper || strokes.has(upper)) return
    if (isKeypad(row[0]!)) numLockLevel.add(upper)
    else strokes.set(upper, { keycode: minKeycode + i, shift: true })
  })
  return { strokes, spare: [...spare, ...vendorSpare], vendor, shiftKeycode, numLockLevel }
}

/**
 * Vendor keys that no virtual desktop has and no program here waits for (XF86MenuKB, Xfer,
 * Launch1–4, LaunchB, DOS, AudioPreset, Go, Finance, Game, Shop): their keycodes are bound
 * like empty ones once those run out. Xvfb's keymap has 19 empty keycodes, so text with 20
 * distinct characters off the keymap needed a second binding, and an application's pause to
 * read the first. Chosen by what Chromium makes of them once bound: the typed character with
 * no `key` or `code` of its own, as an empty keycode gives. Keys Chromium maps to commands
 * (XF86Copy, Back, AudioMute…) or that desktops grab (brightness, WLAN…) are not taken.
 */
export const VENDOR_SPARE_KEYS = {
  XF86MenuKB: 0x1008ff65, XF86Xfer: 0x1008ff8a, XF86Launch1: 0x1008ff41, XF86Launch2: 0x1008ff42,
  XF86Launch3: 0x1008ff43, XF86Launch4: 0x1008ff44, XF86LaunchB: 0x1008ff4b, XF86DOS: 0x1008ff5a,
  XF86AudioPreset: 0x1008ffb6, XF86Go: 0x1008ff5f, XF86Finance: 0x1008ff3c, XF86Game: 0x1008ff5e,
  XF86Shop: 0x1008ff36,
} as const
const VENDOR_SPARE: ReadonlySet<number> = new Set(Object.values(VENDOR_SPARE_KEYS))

/** Keypad keys reach their second level with NumLock, not Shift. */
const isKeypad = (keysym: number) => keysym >= 0xff80 && keysym <= 0xffbd

/**
 * The phases that type `text`. `bound` is what the spare keycodes carry now (kept between
 * calls, so text reusing characters needs no rebinding); it is updated to the state after
 * the last phase. With `pairs`, a spare keycode holds two characters, the second typed with
 * Shift: half the phases, but Chromium then sometimes read one level for the other (an emoji
 * for a letter) on a loaded machine, so it is off by default: one character per keycode.
 */
export function planTyping (text: string, keys: LiveKeys, bound: Bound, { pairs = false }: { pairs?: boolean } = {}): Phase[] {
  const phases: Phase[] = []
  let phase: Phase = { bind: [], strokes: [] }
  // Slots (keycode × level) this phase's strokes rely on: their keycode cannot change within it.
  let pinned = new Set<number>()
  const slotOf = new Map<number, Stroke>()
  for (const [keycode, [first, second]] of bound) {
    slotOf.set(second, { keycode, shift: true })
    slotOf.set(first, { keycode, shift: false })
  }
  // Keycodes whose binding is being built in this phase, with a free second level.
  let open: { keycode: number, keysyms: [number, number] } | undefined
  // Least recently used first, so a character used again soon keeps its keycode.
  const order = [...keys.spare]

  const rebind = (keycode: number, keysym: number): Stroke => {
    for (const old of bound.get(keycode) ?? []) if (slotOf.get(old)?.keycode === keycode) slotOf.delete(old)
    const entry = { keycode, keysyms: [keysym, keysym] as [number, number] }
    bound.set(keycode, entry.keysyms)
    phase.bind.push(entry)
    open = entry
    const stroke = { keycode, shift: false }
    slotOf.set(keysym, stroke)
    return stroke
  }

  for (const char of text) {
    const live = liveStroke(char, keys)
    if (live) { phase.strokes.push(live); continue }
    const keysym = unicodeKeysym(char)
    let stroke = slotOf.get(keysym)
    if (!stroke && pairs && open && open.keysyms[0] === open.keysyms[1] && keys.shiftKeycode !== undefined) {
      // The second level of a keycode bound in this phase (before any stroke used it as a pair).
      open.keysyms[1] = keysym
      stroke = { keycode: open.keycode, shift: true }
      slotOf.set(keysym, stroke)
      open = undefined
    }
    if (!stroke) {
      if (!keys.spare.length) throw new Error(`no spare keycode to bind U+${hex(char)} to: the keymap has no empty keycodes`)
      let free = order.find((k) => !pinned.has(k))
      if (free === undefined) {
        phases.push(phase)
        phase = { bind: [], strokes: [] }
        pinned = new Set()
        open = undefined
        free = order[0]!
      }
      stroke = rebind(free, keysym)
    }
    pinned.add(stroke.keycode)
    order.splice(order.indexOf(stroke.keycode), 1)
    order.push(stroke.keycode)
    phase.strokes.push(stroke)
  }
  if (phase.strokes.length) phases.push(phase)
  return phases
}

function liveStroke (char: string, keys: LiveKeys): Stroke | undefined {
  if (char === '\n') return keys.strokes.get(RETURN)
  if (char === '\t') return keys.strokes.get(TAB)
  for (const keysym of keysymsFor(char)) {
    const stroke = keys.strokes.get(keysym)
    if (stroke && (!stroke.shift || keys.shiftKeycode !== undefined)) return stroke
  }
  return undefined
}

const hex = (char: string) => char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')
