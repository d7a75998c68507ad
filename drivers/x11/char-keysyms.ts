/**
 * Which X keysyms produce a character. Every character has its Unicode keysym
 * (0x01000000 + code point; Latin-1 keysyms equal the code point), but a layout's keymap may
 * carry an older named keysym for it instead (Cyrillic_a, Greek_alpha, EuroSign), so those
 * are read from X.Org's keysymdef.h as node-x11 ships it, where each description starts with
 * the character in parentheses.
 */
import keysymdef from 'x11/lib/keysyms.js'

export const RETURN = 0xff0d
export const TAB = 0xff09
export const SHIFT_L = 0xffe1

let legacy: Map<number, number[]> | undefined

function legacyKeysyms (): Map<number, number[]> {
  if (legacy) return legacy
  legacy = new Map()
  for (const { code, description } of Object.values(keysymdef)) {
    const match = description && /^\((.)\)/u.exec(description)
    if (!match) continue
    const cp = match[1]!.codePointAt(0)!
    // Function keys (0xfd00 and up) describe no character they type.
    if (code === unicodeKeysym(match[1]!) || code >= 0xfd00) continue
    const list = legacy.get(cp) ?? []
    list.push(code)
    legacy.set(cp, list)
  }
  return legacy
}

/** The keysym to bind a character to when the keymap has none for it. */
export function unicodeKeysym (char: string): number {
  if (char === '\n') return RETURN
  if (char === '\t') return TAB
  const cp = char.codePointAt(0)!
  return (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff) ? cp : 0x01000000 + cp
}

/** Every keysym that types the character, the one to bind first. */
export function keysymsFor (char: string): number[] {
  const own = unicodeKeysym(char)
  return [own, ...(legacyKeysyms().get(char.codePointAt(0)!) ?? [])]
}
