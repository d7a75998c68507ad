/**
 * The canonical key vocabulary: one lower-case name per key, with the X11 keysym that a
 * driver presses for it. Every dialect's spelling folds into these names (aliases.ts).
 */
export interface KeyInfo {
  /** Canonical lower-case name, e.g. 'ctrl', 'enter', 'a', 'f5', 'kp_enter'. */
  name: string
  /** The X11 keysym name for this key, e.g. 'Control_L', 'Return', 'a', 'F5', 'KP_Enter'. */
  keysym: string
  /** True for shift, ctrl, alt, super and their variants. */
  modifier: boolean
}

// Only keys that change other keys while held; the lock keys toggle, so they are not here.
const MODIFIERS: Array<[string, string]> = [
  ['shift', 'Shift_L'], ['shift_r', 'Shift_R'], ['ctrl', 'Control_L'], ['ctrl_r', 'Control_R'],
  ['alt', 'Alt_L'], ['alt_r', 'Alt_R'], ['super', 'Super_L'], ['super_r', 'Super_R'],
  ['altgr', 'ISO_Level3_Shift'],
]

const NAMED: Array<[string, string]> = [
  ['enter', 'Return'], ['escape', 'Escape'], ['tab', 'Tab'], ['backspace', 'BackSpace'],
  ['delete', 'Delete'], ['insert', 'Insert'], ['space', 'space'],
  ['left', 'Left'], ['right', 'Right'], ['up', 'Up'], ['down', 'Down'],
  ['home', 'Home'], ['end', 'End'], ['pageup', 'Prior'], ['pagedown', 'Next'],
  ['printscreen', 'Print'], ['pause', 'Pause'], ['menu', 'Menu'],
  ['capslock', 'Caps_Lock'], ['numlock', 'Num_Lock'], ['scrolllock', 'Scroll_Lock'],
  ['kp_enter', 'KP_Enter'], ['kp_add', 'KP_Add'], ['kp_subtract', 'KP_Subtract'],
  ['kp_multiply', 'KP_Multiply'], ['kp_divide', 'KP_Divide'], ['kp_decimal', 'KP_Decimal'], ['kp_equal', 'KP_Equal'],
  ['volume_up', 'XF86AudioRaiseVolume'], ['volume_down', 'XF86AudioLowerVolume'], ['volume_mute', 'XF86AudioMute'],
  ['media_play_pause', 'XF86AudioPlay'], ['media_stop', 'XF86AudioStop'],
  ['media_next', 'XF86AudioNext'], ['media_previous', 'XF86AudioPrev'],
  ['browser_back', 'XF86Back'], ['browser_forward', 'XF86Forward'], ['browser_refresh', 'XF86Reload'],
  ['browser_home', 'XF86HomePage'], ['browser_search', 'XF86Search'],
  ['browser_favorites', 'XF86Favorites'], ['browser_stop', 'XF86Stop'],
  // Windows' VK_LAUNCH_APP1/2 are "My Computer" and "Calculator" (W3C UI Events' LaunchApp1/2).
  ['launch_mail', 'XF86Mail'], ['launch_media', 'XF86AudioMedia'],
  ['launch_app1', 'XF86MyComputer'], ['launch_app2', 'XF86Calculator'], ['sleep', 'XF86Sleep'],
  ['select', 'Select'], ['execute', 'Execute'], ['help', 'Help'], ['clear', 'Clear'],
  ['kp_separator', 'KP_Separator'],
  // Shift+Tab's own keysym: GTK and Qt read it as "focus backwards" even without Shift held.
  ['iso_left_tab', 'ISO_Left_Tab'],
  // The input-method keys of Korean and Japanese keyboards.
  ['hangul', 'Hangul'], ['hanja', 'Hangul_Hanja'], ['junja', 'Hangul_Jeonja'],
  ['kana', 'Kana_Lock'], ['kanji', 'Kanji'], ['convert', 'Henkan_Mode'], ['nonconvert', 'Muhenkan'],
]

/** Printable characters whose canonical name is the character itself, with their keysym names. */
export const PUNCTUATION: Array<[string, string]> = [
  ['`', 'grave'], ['-', 'minus'], ['=', 'equal'], ['[', 'bracketleft'], [']', 'bracketright'],
  ['\\', 'backslash'], [';', 'semicolon'], ["'", 'apostrophe'], [',', 'comma'], ['.', 'period'], ['/', 'slash'],
  ['~', 'asciitilde'], ['!', 'exclam'], ['@', 'at'], ['#', 'numbersign'], ['$', 'dollar'], ['%', 'percent'],
  ['^', 'asciicircum'], ['&', 'ampersand'], ['*', 'asterisk'], ['(', 'parenleft'], [')', 'parenright'],
  ['_', 'underscore'], ['+', 'plus'], ['{', 'braceleft'], ['}', 'braceright'], ['|', 'bar'],
  [':', 'colon'], ['"', 'quotedbl'], ['<', 'less'], ['>', 'greater'], ['?', 'question'],
  // The Japanese keyboard's yen key (pyautogui and HUD's CLAKey call it 'yen').
  ['¥', 'yen'],
]

const key = (modifier: boolean) => ([name, keysym]: [string, string]): KeyInfo => ({ name, keysym, modifier })

export const CANONICAL_KEYS: readonly KeyInfo[] = Object.freeze([
  ...MODIFIERS.map(key(true)),
  ...NAMED.map(key(false)),
  ...Array.from({ length: 24 }, (_, i): KeyInfo => ({ name: `f${i + 1}`, keysym: `F${i + 1}`, modifier: false })),
  ...Array.from({ length: 10 }, (_, i): KeyInfo => ({ name: `kp_${i}`, keysym: `KP_${i}`, modifier: false })),
  ...'abcdefghijklmnopqrstuvwxyz0123456789'.split('').map((c): KeyInfo => ({ name: c, keysym: c, modifier: false })),
  ...PUNCTUATION.map(key(false)),
].map((info) => Object.freeze(info)))
