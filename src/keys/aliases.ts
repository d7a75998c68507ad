/**
 * Every dialect's key names, folded into canonical names (lookups lower-case the input, so
 * every alias here is lower case): xdotool keysyms (Anthropic, Qwen, Scrapybara), OpenAI CUA
 * and Playwright (CTRL, ArrowLeft, KeyA, Numpad0, ControlOrMeta), HUD's CLAKey (pyautogui:
 * ctrlleft, winleft, num0, prevtrack), UI-TARS (arrowleft, esc), Gemini (Control, PageDown),
 * pynput (cmd_l, alt_gr, media_volume_up), macOS words, and common spellings.
 * The one table: adapters and drivers keep none of their own.
 *
 * Left out on purpose, because they name a different key than the one they look like:
 * hyphen (the soft-hyphen keysym), pound (£ in the UK), hyper_l, mode_switch (and CLAKey's
 * modechange), linefeed, dead_* keysyms, start (Start menu or media start?), zoom (Windows'
 * VK_ZOOM has no X keysym) and fn (the keyboard handles it; X never sees it).
 */
import { CANONICAL_KEYS, PUNCTUATION } from './canonical.ts'

/** canonical name → the spellings written by hand (keysym names are added from canonical.ts). */
const WRITTEN: Record<string, string[]> = {
  shift: ['lshift', 'leftshift', 'shiftleft', 'left_shift'],
  shift_r: ['rshift', 'rightshift', 'shiftright', 'right_shift'],
  // Playwright resolves ControlOrMeta to Control everywhere but macOS.
  ctrl: ['control', 'ctl', 'ctrl_l', 'lctrl', 'leftctrl', 'ctrlleft', 'controlleft', 'left_ctrl', 'left_control',
    'controlormeta', 'strg'],
  ctrl_r: ['rctrl', 'rightctrl', 'ctrlright', 'controlright', 'right_ctrl', 'right_control'],
  alt: ['lalt', 'leftalt', 'altleft', 'left_alt', 'option', 'opt', 'option_l', 'optionleft'],
  alt_r: ['ralt', 'rightalt', 'altright', 'right_alt', 'option_r', 'optionright'],
  // SPEC §3: the macOS and Windows words all mean the platform's key, which on X is Super.
  super: ['cmd', 'command', 'meta', 'meta_l', 'win', 'windows', 'lwin', 'leftwin', 'winleft', 'left_win', 'os', 'oskey',
    'metaleft', 'left_super', 'left_meta', 'left_cmd', 'cmd_l', 'command_l', 'win_l', 'windows_l', 'super_key'],
  super_r: ['meta_r', 'rwin', 'rightwin', 'winright', 'right_win', 'metaright', 'right_super', 'right_meta', 'right_cmd',
    'cmd_r', 'command_r', 'win_r', 'windows_r'],
  altgr: ['alt_gr', 'altgraph', 'alt_graph'],
  enter: ['ret', 'newline', '\n', '\r'],
  escape: ['esc'],
  tab: ['\t'],
  backspace: ['back_space', 'bksp', 'bs'],
  delete: ['del', 'forward_delete', 'forwarddelete', 'kp_delete'],
  insert: ['ins', 'kp_insert'],
  space: ['spacebar', 'space_bar', ' '],
  // The keypad's arrows and paging keys (Num Lock off) do what the main ones do.
  left: ['arrowleft', 'arrow_left', 'left_arrow', 'leftarrow', 'kp_left'],
  right: ['arrowright', 'arrow_right', 'right_arrow', 'rightarrow', 'kp_right'],
  up: ['arrowup', 'arrow_up', 'up_arrow', 'uparrow', 'kp_up'],
  down: ['arrowdown', 'arrow_down', 'down_arrow', 'downarrow', 'kp_down'],
  home: ['kp_home'],
  end: ['kp_end'],
  pageup: ['page_up', 'pgup', 'pg_up', 'kp_prior', 'kp_page_up'],
  pagedown: ['page_down', 'pgdn', 'pg_dn', 'pgdown', 'pg_down', 'kp_next', 'kp_page_down'],
  printscreen: ['print_screen', 'prtsc', 'prtscr', 'prt_sc', 'prtscn', 'prntscrn', 'snapshot', 'sys_req'],
  pause: ['break', 'pause_break'],
  menu: ['contextmenu', 'context_menu', 'apps', 'application'],
  capslock: ['caps'],
  kp_enter: ['numpadenter', 'numpad_enter'],
  // pyautogui (HUD CLAKey) names the keypad operators without a prefix.
  kp_add: ['numpadadd', 'numpad_add', 'numpad_plus', 'kp_plus', 'add'],
  kp_subtract: ['numpadsubtract', 'numpad_subtract', 'numpad_minus', 'kp_minus', 'subtract'],
  kp_multiply: ['numpadmultiply', 'numpad_multiply', 'multiply'],
  kp_divide: ['numpaddivide', 'numpad_divide', 'divide'],
  kp_decimal: ['numpaddecimal', 'numpad_decimal', 'decimal'],
  kp_equal: ['numpadequal', 'numpad_equal'],
  volume_up: ['audiovolumeup', 'volumeup', 'vol_up', 'audio_vol_up', 'media_volume_up'],
  volume_down: ['audiovolumedown', 'volumedown', 'vol_down', 'audio_vol_down', 'media_volume_down'],
  volume_mute: ['audiovolumemute', 'volumemute', 'mute', 'audio_mute', 'media_volume_mute'],
  media_play_pause: ['mediaplaypause', 'playpause', 'play_pause', 'media_play', 'audio_play'],
  media_stop: ['mediastop', 'stop', 'audio_stop'],
  media_next: ['mediatracknext', 'nexttrack', 'next_track', 'media_next_track', 'audio_next'],
  media_previous: ['mediatrackprevious', 'prevtrack', 'prev_track', 'previous_track', 'media_prev_track', 'media_prev',
    'audio_prev'],
  browser_back: ['browserback'],
  browser_forward: ['browserforward'],
  browser_refresh: ['browserrefresh', 'xf86refresh'],
  browser_home: ['browserhome'],
  browser_search: ['browsersearch'],
  browser_favorites: ['browserfavorites', 'favorites'],
  browser_stop: ['browserstop'],
  launch_mail: ['launchmail', 'mail'],
  launch_media: ['launchmediaselect', 'launchmediaplayer', 'mediaselect'],
  launch_app1: ['launchapp1', 'launchapplication1', 'mycomputer'],
  launch_app2: ['launchapp2', 'launchapplication2', 'calculator'],
  sleep: ['standby'],
  kp_separator: ['separator', 'numpadcomma', 'numpad_comma', 'kp_comma'],
  hangul: ['hanguel', 'hangulmode', 'hangul_mode'],
  hanja: ['hanjamode'],
  junja: ['junjamode'],
  kana: ['kanamode', 'kana_mode'],
  kanji: ['kanjimode'],
  nonconvert: ['non_convert'],
  convert: ['henkan'],
}

/** Words people write for punctuation, beside the keysym names. */
const PUNCTUATION_WORDS: Record<string, string[]> = {
  '`': ['backquote', 'backtick', 'quoteleft'], '-': ['dash'], '=': ['equals'],
  '[': ['left_bracket'], ']': ['right_bracket'], '\\': ['back_slash'], "'": ['quote', 'single_quote', 'quoteright'],
  '.': ['dot', 'full_stop'], '/': ['forward_slash'], '~': ['tilde'], '!': ['exclamation', 'exclamation_mark', 'bang'],
  '#': ['hash', 'number_sign'], '^': ['caret', 'circumflex'], '*': ['star'], '(': ['left_paren'], ')': ['right_paren'],
  '{': ['left_brace'], '}': ['right_brace'], '|': ['pipe', 'vertical_bar'], '"': ['double_quote'],
  '<': ['less_than'], '>': ['greater_than'], '?': ['question_mark'], '¥': ['yen_sign'],
}

function generated (): Array<[string, string]> {
  const pairs: Array<[string, string]> = []
  // xdotool takes keysym names, so each key's own keysym is an alias of it ('Return', 'KP_Add', 'grave').
  for (const { name, keysym } of CANONICAL_KEYS) {
    if (keysym.toLowerCase() !== name) pairs.push([keysym.toLowerCase(), name])
  }
  for (let i = 1; i <= 24; i++) pairs.push([`key_f${i}`, `f${i}`])
  for (let i = 0; i <= 9; i++) {
    pairs.push([`numpad${i}`, `kp_${i}`], [`numpad_${i}`, `kp_${i}`], [`kp${i}`, `kp_${i}`], [`num${i}`, `kp_${i}`],
      [`digit${i}`, String(i)])
  }
  for (const c of 'abcdefghijklmnopqrstuvwxyz') pairs.push([`key${c}`, c])
  for (const [char] of PUNCTUATION) {
    for (const word of PUNCTUATION_WORDS[char] ?? []) pairs.push([word, char])
  }
  return pairs
}

/** Every [alias, canonical name] pair as written, before any Map could hide a clash (tests check it). */
export const ALIAS_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ...Object.entries(WRITTEN).flatMap(([name, aliases]) => aliases.map((alias): [string, string] => [alias, name])),
  ...generated(),
]
