/**
 * X keysym → libnut key name, for the keys libnut can press itself (in-process XTest, no
 * process spawn). Keys it has no name for — KP_Enter, Pause (libnut maps it to nothing and
 * silently drops it), browser and some media keys, shifted punctuation, AltGr — are pressed
 * through xdotool by keysym instead, so no key is ever dropped.
 */
const fixed: Array<[string, string]> = [
  ['Return', 'enter'], ['Escape', 'escape'], ['Tab', 'tab'], ['BackSpace', 'backspace'],
  ['Delete', 'delete'], ['Insert', 'insert'], ['space', 'space'],
  ['Left', 'left'], ['Right', 'right'], ['Up', 'up'], ['Down', 'down'],
  ['Home', 'home'], ['End', 'end'], ['Prior', 'pageup'], ['Next', 'pagedown'],
  ['Print', 'printscreen'], ['Menu', 'menu'],
  ['Caps_Lock', 'caps_lock'], ['Num_Lock', 'num_lock'], ['Scroll_Lock', 'scroll_lock'],
  ['Shift_L', 'shift'], ['Shift_R', 'right_shift'], ['Control_L', 'control'], ['Control_R', 'right_control'],
  ['Alt_L', 'alt'], ['Alt_R', 'right_alt'], ['Super_L', 'meta'], ['Super_R', 'right_meta'],
  ['KP_Add', 'add'], ['KP_Subtract', 'subtract'], ['KP_Multiply', 'multiply'], ['KP_Divide', 'divide'],
  ['KP_Decimal', 'numpad_decimal'],
  ['XF86AudioMute', 'audio_mute'], ['XF86AudioRaiseVolume', 'audio_vol_up'], ['XF86AudioLowerVolume', 'audio_vol_down'],
  ['XF86AudioPlay', 'audio_play'], ['XF86AudioStop', 'audio_stop'], ['XF86AudioNext', 'audio_next'], ['XF86AudioPrev', 'audio_prev'],
  ['grave', '`'], ['minus', '-'], ['equal', '='], ['bracketleft', '['], ['bracketright', ']'],
  ['backslash', '\\'], ['semicolon', ';'], ['apostrophe', "'"], ['comma', ','], ['period', '.'], ['slash', '/'],
]

export const KEYSYM_TO_NUT = new Map<string, string>([
  ...fixed,
  ...'abcdefghijklmnopqrstuvwxyz0123456789'.split('').map((c) => [c, c] as [string, string]),
  ...Array.from({ length: 24 }, (_, i) => [`F${i + 1}`, `f${i + 1}`] as [string, string]),
  ...Array.from({ length: 10 }, (_, i) => [`KP_${i}`, `numpad_${i}`] as [string, string]),
])

/** How to type one printable ASCII character on a US layout: the key, and whether Shift is needed. */
const SHIFTED = '~!@#$%^&*()_+{}|:"<>?'
const BASE = '`1234567890-=[]\\;\',./'

export function asciiKey (char: string): { key: string, shift: boolean } | undefined {
  if (char === '\n' || char === '\r') return { key: 'enter', shift: false }
  if (char === '\t') return { key: 'tab', shift: false }
  if (char === ' ') return { key: 'space', shift: false }
  if (/^[a-z0-9]$/.test(char)) return { key: char, shift: false }
  if (/^[A-Z]$/.test(char)) return { key: char.toLowerCase(), shift: true }
  const shifted = SHIFTED.indexOf(char)
  if (shifted >= 0) return { key: BASE[shifted]!, shift: true }
  if (BASE.includes(char)) return { key: char, shift: false }
  return undefined
}
