/**
 * Every dialect's key names, folded into canonical names (lookups are case-insensitive):
 * xdotool keysyms (Anthropic), OpenAI/Playwright (CTRL, ArrowLeft, KeyA, Numpad0), HUD's
 * CLAKey, UI-TARS (arrowleft, ctrl), Gemini (Control, PageDown), macOS words, and common
 * spellings. The one table: adapters and drivers keep none of their own.
 */
import { PUNCTUATION } from './canonical.ts'

const groups: Record<string, string[]> = {
  shift: ['shift_l', 'lshift', 'leftshift', 'shiftleft', 'left_shift'],
  shift_r: ['rshift', 'rightshift', 'shiftright', 'right_shift'],
  ctrl: ['control', 'control_l', 'ctl', 'lctrl', 'leftctrl', 'controlleft', 'left_ctrl', 'left_control', 'ctrl_l', 'strg'],
  ctrl_r: ['control_r', 'rctrl', 'rightctrl', 'controlright', 'right_ctrl', 'right_control'],
  alt: ['alt_l', 'lalt', 'leftalt', 'altleft', 'left_alt', 'option', 'opt', 'menu_alt'],
  alt_r: ['ralt', 'rightalt', 'altright', 'right_alt', 'option_r'],
  super: ['super_l', 'cmd', 'command', 'meta', 'meta_l', 'win', 'windows', 'lwin', 'leftwin', 'os', 'metaleft', 'oskey',
    'left_super', 'left_meta', 'left_cmd', 'cmd_l', 'command_l', 'hyper_l', 'windows_l', 'win_l', 'super_key', 'start'],
  super_r: ['meta_r', 'rwin', 'rightwin', 'metaright', 'right_super', 'right_meta', 'right_cmd', 'cmd_r', 'command_r', 'win_r'],
  altgr: ['iso_level3_shift', 'alt_graph', 'altgraph', 'mode_switch'],
  enter: ['return', 'ret', 'newline', 'linefeed'],
  escape: ['esc'],
  backspace: ['back_space', 'bksp', 'bs'],
  delete: ['del', 'forward_delete', 'forwarddelete'],
  insert: ['ins'],
  space: ['spacebar', 'space_bar', ' '],
  left: ['arrowleft', 'arrow_left', 'left_arrow', 'leftarrow', 'kp_left'],
  right: ['arrowright', 'arrow_right', 'right_arrow', 'rightarrow', 'kp_right'],
  up: ['arrowup', 'arrow_up', 'up_arrow', 'uparrow', 'kp_up'],
  down: ['arrowdown', 'arrow_down', 'down_arrow', 'downarrow', 'kp_down'],
  home: ['kp_home'],
  end: ['kp_end'],
  pageup: ['prior', 'page_up', 'pgup', 'pg_up', 'kp_prior', 'kp_page_up'],
  pagedown: ['next', 'page_down', 'pgdn', 'pg_dn', 'pgdown', 'kp_next', 'kp_page_down'],
  printscreen: ['print', 'prtsc', 'prtscr', 'prt_sc', 'print_screen', 'snapshot', 'sys_req'],
  pause: ['break', 'pause_break'],
  menu: ['contextmenu', 'context_menu', 'apps', 'application'],
  capslock: ['caps_lock', 'caps'],
  numlock: ['num_lock'],
  scrolllock: ['scroll_lock'],
  kp_enter: ['numpadenter', 'numpad_enter'],
  kp_add: ['numpadadd', 'numpad_add', 'kp_plus', 'add'],
  kp_subtract: ['numpadsubtract', 'numpad_subtract', 'kp_minus', 'subtract'],
  kp_multiply: ['numpadmultiply', 'numpad_multiply', 'multiply'],
  kp_divide: ['numpaddivide', 'numpad_divide', 'divide'],
  kp_decimal: ['numpaddecimal', 'numpad_decimal', 'decimal', 'kp_separator'],
  kp_equal: ['numpadequal', 'numpad_equal'],
  volume_up: ['xf86audioraisevolume', 'audiovolumeup', 'volumeup', 'audio_vol_up', 'vol_up'],
  volume_down: ['xf86audiolowervolume', 'audiovolumedown', 'volumedown', 'audio_vol_down', 'vol_down'],
  volume_mute: ['xf86audiomute', 'audiovolumemute', 'volumemute', 'audio_mute', 'mute'],
  media_play_pause: ['xf86audioplay', 'mediaplaypause', 'playpause', 'play_pause', 'audio_play', 'media_play'],
  media_stop: ['xf86audiostop', 'mediastop', 'audio_stop'],
  media_next: ['xf86audionext', 'mediatracknext', 'media_next_track', 'audio_next', 'next_track'],
  media_previous: ['xf86audioprev', 'mediatrackprevious', 'media_prev_track', 'audio_prev', 'media_prev', 'prev_track'],
  browser_back: ['xf86back', 'browserback'],
  browser_forward: ['xf86forward', 'browserforward'],
  browser_refresh: ['xf86reload', 'xf86refresh', 'browserrefresh'],
  browser_home: ['xf86homepage', 'browserhome'],
  browser_search: ['xf86search', 'browsersearch'],
}

function generated (): Array<[string, string]> {
  const pairs: Array<[string, string]> = []
  for (let i = 1; i <= 24; i++) pairs.push([`key_f${i}`, `f${i}`])
  for (let i = 0; i <= 9; i++) {
    pairs.push([`numpad${i}`, `kp_${i}`], [`numpad_${i}`, `kp_${i}`], [`kp${i}`, `kp_${i}`], [`digit${i}`, String(i)])
  }
  for (const c of 'abcdefghijklmnopqrstuvwxyz') pairs.push([`key${c}`, c])
  // Keysym names (xdotool) and the words people write for punctuation.
  const words: Record<string, string[]> = {
    '`': ['backquote', 'backtick', 'dead_grave'], '-': ['hyphen', 'dash'], '=': ['equals'],
    '[': ['left_bracket', 'openbracket'], ']': ['right_bracket', 'closebracket'], '\\': ['back_slash'],
    "'": ['quote', 'single_quote', 'quoteright'], ',': [], '.': ['dot', 'full_stop', 'decimal_point'], '/': ['forward_slash'],
    '~': ['tilde'], '!': ['exclamation', 'exclamation_mark', 'bang'], '@': [], '#': ['hash', 'pound', 'number_sign'],
    '$': [], '%': [], '^': ['caret', 'circumflex'], '&': ['and'], '*': ['star'], '(': ['left_paren'], ')': ['right_paren'],
    '_': [], '+': [], '{': ['left_brace'], '}': ['right_brace'], '|': ['pipe', 'vertical_bar'], ':': [], '"': ['double_quote', 'quote_dbl'],
    '<': ['less_than'], '>': ['greater_than'], '?': ['question_mark'],
  }
  for (const [char, keysym] of PUNCTUATION) {
    pairs.push([keysym, char])
    for (const word of words[char] ?? []) pairs.push([word, char])
  }
  return pairs
}

/** Every [alias (lower case), canonical name] pair, as written (tests check it is unambiguous). */
export const ALIAS_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ...Object.entries(groups).flatMap(([name, aliases]) => aliases.map((alias): [string, string] => [alias, name])),
  ...generated(),
]

/** alias (lower case) → canonical name. */
export const ALIASES: ReadonlyMap<string, string> = new Map(ALIAS_PAIRS)
