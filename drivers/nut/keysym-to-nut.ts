/**
 * X keysym name → libnut key name, for the keys libnut can press itself (XTest in the worker,
 * no process spawn). Every pair was checked against xev on Xvfb; some libnut names are not
 * what they seem:
 * - 'enter' is KP_Enter and 'return' is Return;
 * - 'numpad_0'…'numpad_9' press the keycode of KP_0…KP_9, which gives KP_Insert… while Num
 *   Lock is off (the digit is the keycode's second level);
 * - 'menu', 'cmd' and 'fn' throw "Invalid key code specified", and Pause has no name at all;
 * - a name whose keysym is on no keycode (e.g. 'clear', 'audio_repeat' on Xvfb) makes libnut
 *   send keycode 0, which Xlib answers with a BadValue error and exit() of the process.
 * So this table is only a first filter: the worker presses a key through libnut only when
 * the live keymap has its keysym on the first level of some keycode (see keymap.ts), and
 * presses everything else (Menu, Pause, KP_Enter when absent, browser keys, shifted
 * punctuation like 'exclam', keypad digits…) through `xdotool keydown <keysym>`.
 */
const NAMED: Array<[keysym: string, nut: string]> = [
  ['Return', 'return'], ['KP_Enter', 'enter'], ['Tab', 'tab'], ['BackSpace', 'backspace'],
  ['Escape', 'escape'], ['Delete', 'delete'], ['Insert', 'insert'], ['space', 'space'],
  ['Home', 'home'], ['End', 'end'], ['Prior', 'pageup'], ['Next', 'pagedown'],
  ['Left', 'left'], ['Right', 'right'], ['Up', 'up'], ['Down', 'down'],
  ['Print', 'printscreen'], ['Caps_Lock', 'caps_lock'], ['Num_Lock', 'num_lock'], ['Scroll_Lock', 'scroll_lock'],
  ['Shift_L', 'shift'], ['Shift_R', 'right_shift'], ['Control_L', 'control'], ['Control_R', 'right_control'],
  ['Alt_L', 'alt'], ['Alt_R', 'right_alt'], ['Super_L', 'meta'], ['Super_R', 'right_meta'],
  ['KP_Add', 'add'], ['KP_Subtract', 'subtract'], ['KP_Multiply', 'multiply'], ['KP_Divide', 'divide'],
  ['KP_Decimal', 'numpad_decimal'], ['KP_Equal', 'numpad_equal'],
  ['XF86AudioMute', 'audio_mute'], ['XF86AudioLowerVolume', 'audio_vol_down'], ['XF86AudioRaiseVolume', 'audio_vol_up'],
  ['XF86AudioPlay', 'audio_play'], ['XF86AudioPause', 'audio_pause'], ['XF86AudioStop', 'audio_stop'],
  ['XF86AudioPrev', 'audio_prev'], ['XF86AudioNext', 'audio_next'],
  ['XF86AudioRewind', 'audio_rewind'], ['XF86AudioForward', 'audio_forward'],
  ['XF86MonBrightnessUp', 'lights_mon_up'], ['XF86MonBrightnessDown', 'lights_mon_down'],
  ['XF86KbdLightOnOff', 'lights_kbd_toggle'], ['XF86KbdBrightnessUp', 'lights_kbd_up'], ['XF86KbdBrightnessDown', 'lights_kbd_down'],
  ['grave', '`'], ['minus', '-'], ['equal', '='], ['bracketleft', '['], ['bracketright', ']'],
  ['backslash', '\\'], ['semicolon', ';'], ['apostrophe', "'"], ['comma', ','], ['period', '.'], ['slash', '/'],
]

/** Keysym name → libnut key name. Only for keysyms on the first level of the live keymap. */
export const KEYSYM_TO_NUT: ReadonlyMap<string, string> = new Map<string, string>([
  ...NAMED,
  ...[...'abcdefghijklmnopqrstuvwxyz0123456789'].map((c): [string, string] => [c, c]),
  ...Array.from({ length: 24 }, (_, i): [string, string] => [`F${i + 1}`, `f${i + 1}`]),
  ...Array.from({ length: 10 }, (_, i): [string, string] => [`KP_${i}`, `numpad_${i}`]),
])
