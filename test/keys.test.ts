/** The one key table (SPEC §3): every dialect's spelling folds into one canonical name. */
import t from 'tap'
import { ALIAS_PAIRS } from '../src/keys/aliases.ts'
import { CANONICAL_KEYS, normalizeKey, parseCombo, suggestKeys } from '../src/keys/index.ts'
import { KEY_TABLE, spellings } from '../src/keys/lookup.ts'

const cases: Record<string, Array<[input: string, canonical: string]>> = {
  'xdotool keysyms (Anthropic, Qwen, Scrapybara)': [
    ['Return', 'enter'], ['KP_Enter', 'kp_enter'], ['BackSpace', 'backspace'], ['Prior', 'pageup'], ['Next', 'pagedown'],
    ['Page_Up', 'pageup'], ['Page_Down', 'pagedown'], ['Control_L', 'ctrl'], ['Control_R', 'ctrl_r'], ['Shift_L', 'shift'],
    ['Shift_R', 'shift_r'], ['Alt_L', 'alt'], ['Alt_R', 'alt_r'], ['Super_L', 'super'], ['super_l', 'super'],
    ['Super_R', 'super_r'], ['Meta_L', 'super'], ['Meta_R', 'super_r'], ['Escape', 'escape'], ['Delete', 'delete'],
    ['Insert', 'insert'], ['Tab', 'tab'], ['space', 'space'], ['Up', 'up'], ['Home', 'home'], ['End', 'end'],
    ['KP_0', 'kp_0'], ['KP_9', 'kp_9'], ['KP_Add', 'kp_add'], ['KP_Subtract', 'kp_subtract'], ['KP_Multiply', 'kp_multiply'],
    ['KP_Divide', 'kp_divide'], ['KP_Decimal', 'kp_decimal'], ['KP_Equal', 'kp_equal'], ['KP_Left', 'left'],
    ['KP_Page_Up', 'pageup'], ['KP_Delete', 'delete'], ['XF86AudioRaiseVolume', 'volume_up'],
    ['XF86AudioLowerVolume', 'volume_down'], ['XF86AudioMute', 'volume_mute'], ['XF86AudioPlay', 'media_play_pause'],
    ['XF86AudioStop', 'media_stop'], ['XF86AudioNext', 'media_next'], ['XF86AudioPrev', 'media_previous'],
    ['XF86Back', 'browser_back'], ['XF86Forward', 'browser_forward'], ['XF86Reload', 'browser_refresh'],
    ['XF86Refresh', 'browser_refresh'], ['XF86HomePage', 'browser_home'], ['XF86Search', 'browser_search'],
    ['Print', 'printscreen'], ['Pause', 'pause'], ['Menu', 'menu'], ['Caps_Lock', 'capslock'], ['Num_Lock', 'numlock'],
    ['Scroll_Lock', 'scrolllock'], ['ISO_Level3_Shift', 'altgr'], ['F1', 'f1'], ['F12', 'f12'], ['F24', 'f24'],
    ['grave', '`'], ['quoteleft', '`'], ['minus', '-'], ['equal', '='], ['bracketleft', '['], ['bracketright', ']'],
    ['backslash', '\\'], ['semicolon', ';'], ['apostrophe', "'"], ['quoteright', "'"], ['comma', ','], ['period', '.'],
    ['slash', '/'], ['asciitilde', '~'], ['exclam', '!'], ['at', '@'], ['numbersign', '#'], ['dollar', '$'],
    ['percent', '%'], ['asciicircum', '^'], ['ampersand', '&'], ['asterisk', '*'], ['parenleft', '('], ['parenright', ')'],
    ['underscore', '_'], ['plus', '+'], ['braceleft', '{'], ['braceright', '}'], ['bar', '|'], ['colon', ':'],
    ['quotedbl', '"'], ['less', '<'], ['greater', '>'], ['question', '?'], ['ISO_Left_Tab', 'iso_left_tab'],
    ['KP_Separator', 'kp_separator'], ['XF86Favorites', 'browser_favorites'], ['XF86Stop', 'browser_stop'],
    ['XF86Mail', 'launch_mail'], ['XF86MyComputer', 'launch_app1'], ['XF86Calculator', 'launch_app2'],
    ['XF86Sleep', 'sleep'], ['Hangul_Hanja', 'hanja'], ['Henkan', 'convert'], ['Muhenkan', 'nonconvert'], ['yen', '¥'],
  ],
  'OpenAI CUA / Playwright': [
    ['CTRL', 'ctrl'], ['CONTROL', 'ctrl'], ['Control', 'ctrl'], ['ControlOrMeta', 'ctrl'], ['ENTER', 'enter'],
    ['ESC', 'escape'], ['ARROWLEFT', 'left'], ['ArrowLeft', 'left'], ['ARROWUP', 'up'], ['ArrowDown', 'down'],
    ['ArrowRight', 'right'], ['PAGEUP', 'pageup'], ['PageDown', 'pagedown'], ['Meta', 'super'], ['CMD', 'super'],
    ['SPACE', 'space'], ['BACKSPACE', 'backspace'], ['DELETE', 'delete'], ['TAB', 'tab'], ['CAPSLOCK', 'capslock'],
    ['Shift', 'shift'], ['Alt', 'alt'], ['AltGraph', 'altgr'], ['ShiftLeft', 'shift'], ['ShiftRight', 'shift_r'],
    ['ControlLeft', 'ctrl'], ['ControlRight', 'ctrl_r'], ['AltLeft', 'alt'], ['AltRight', 'alt_r'], ['MetaLeft', 'super'],
    ['MetaRight', 'super_r'], ['AudioVolumeUp', 'volume_up'], ['AudioVolumeDown', 'volume_down'],
    ['AudioVolumeMute', 'volume_mute'], ['MediaPlayPause', 'media_play_pause'], ['MediaStop', 'media_stop'],
    ['MediaTrackNext', 'media_next'], ['MediaTrackPrevious', 'media_previous'], ['BrowserBack', 'browser_back'],
    ['BrowserForward', 'browser_forward'], ['BrowserRefresh', 'browser_refresh'], ['BrowserHome', 'browser_home'],
    ['BrowserSearch', 'browser_search'], ['NumpadEnter', 'kp_enter'], ['Numpad0', 'kp_0'], ['Numpad7', 'kp_7'],
    ['NumpadAdd', 'kp_add'], ['NumpadSubtract', 'kp_subtract'], ['NumpadMultiply', 'kp_multiply'],
    ['NumpadDivide', 'kp_divide'], ['NumpadDecimal', 'kp_decimal'], ['NumpadEqual', 'kp_equal'], ['Digit1', '1'],
    ['Digit0', '0'], ['KeyA', 'a'], ['KeyZ', 'z'], ['Insert', 'insert'], ['PrintScreen', 'printscreen'],
    ['ContextMenu', 'menu'], ['NumLock', 'numlock'], ['ScrollLock', 'scrolllock'], ['HOME', 'home'], ['END', 'end'],
    ['Backquote', '`'], ['Minus', '-'], ['Equal', '='], ['BracketLeft', '['], ['BracketRight', ']'], ['Backslash', '\\'],
    ['Semicolon', ';'], ['Quote', "'"], ['Comma', ','], ['Period', '.'], ['Slash', '/'], ['F5', 'f5'],
  ],
  'HUD CLAKey (pyautogui names)': [
    ['backspace', 'backspace'], ['tab', 'tab'], ['enter', 'enter'], ['shift', 'shift'], ['shiftleft', 'shift'],
    ['shiftright', 'shift_r'], ['ctrl', 'ctrl'], ['ctrlleft', 'ctrl'], ['ctrlright', 'ctrl_r'], ['alt', 'alt'],
    ['altleft', 'alt'], ['altright', 'alt_r'], ['pause', 'pause'], ['capslock', 'capslock'], ['esc', 'escape'],
    ['escape', 'escape'], ['space', 'space'], ['pageup', 'pageup'], ['pagedown', 'pagedown'], ['end', 'end'],
    ['home', 'home'], ['left', 'left'], ['up', 'up'], ['right', 'right'], ['down', 'down'], ['print', 'printscreen'],
    ['printscreen', 'printscreen'], ['prtsc', 'printscreen'], ['prntscrn', 'printscreen'], ['insert', 'insert'],
    ['delete', 'delete'], ['numlock', 'numlock'], ['scrolllock', 'scrolllock'], ['apps', 'menu'],
    ['browserback', 'browser_back'], ['browserforward', 'browser_forward'], ['browserhome', 'browser_home'],
    ['browserrefresh', 'browser_refresh'], ['browsersearch', 'browser_search'], ['playpause', 'media_play_pause'],
    ['stop', 'media_stop'], ['prevtrack', 'media_previous'], ['nexttrack', 'media_next'], ['volumemute', 'volume_mute'],
    ['volumeup', 'volume_up'], ['volumedown', 'volume_down'], ['win', 'super'], ['winleft', 'super'],
    ['winright', 'super_r'], ['command', 'super'], ['option', 'alt'], ['optionleft', 'alt'], ['optionright', 'alt_r'],
    ['num0', 'kp_0'], ['num9', 'kp_9'], ['multiply', 'kp_multiply'], ['add', 'kp_add'], ['subtract', 'kp_subtract'],
    ['decimal', 'kp_decimal'], ['divide', 'kp_divide'], ['f1', 'f1'], ['f24', 'f24'], ['\t', 'tab'], ['\n', 'enter'],
    ['\r', 'enter'], [' ', 'space'], ['!', '!'], ['#', '#'], ['a', 'a'], ['1', '1'],
  ],
  'UI-TARS and Gemini': [
    ['arrowleft', 'left'], ['arrowup', 'up'], ['ctrl', 'ctrl'], ['esc', 'escape'], ['pagedown', 'pagedown'],
    ['enter', 'enter'], ['page down', 'pagedown'], ['meta', 'super'], ['cmd', 'super'], ['Control', 'ctrl'],
    ['Enter', 'enter'], ['PageDown', 'pagedown'], ['Return', 'enter'], ['Alt', 'alt'], ['Shift', 'shift'],
  ],
  'pynput': [
    ['cmd_l', 'super'], ['cmd_r', 'super_r'], ['ctrl_l', 'ctrl'], ['ctrl_r', 'ctrl_r'], ['alt_gr', 'altgr'],
    ['page_up', 'pageup'], ['print_screen', 'printscreen'], ['media_volume_up', 'volume_up'],
    ['media_volume_mute', 'volume_mute'], ['media_play_pause', 'media_play_pause'], ['media_previous', 'media_previous'],
  ],
  'macOS and Windows words': [
    ['cmd', 'super'], ['command', 'super'], ['meta', 'super'], ['win', 'super'], ['windows', 'super'], ['super', 'super'],
    ['option', 'alt'], ['opt', 'alt'], ['Command', 'super'], ['OPTION', 'alt'],
  ],
  'common spellings': [
    ['return', 'enter'], ['del', 'delete'], ['esc', 'escape'], ['pgup', 'pageup'], ['pgdn', 'pagedown'], ['ins', 'insert'],
    ['spacebar', 'space'], ['plus', '+'], ['minus', '-'], ['left_arrow', 'left'], ['arrow_left', 'left'],
    ['leftarrow', 'left'], ['lctrl', 'ctrl'], ['rctrl', 'ctrl_r'], ['control_r', 'ctrl_r'], ['ctl', 'ctrl'],
    ['prtsc', 'printscreen'], ['prtscr', 'printscreen'], ['caps_lock', 'capslock'], ['kp_plus', 'kp_add'],
    ['kp_minus', 'kp_subtract'], ['numpad_5', 'kp_5'], ['kp3', 'kp_3'], ['key_f5', 'f5'], ['bksp', 'backspace'],
    ['tilde', '~'], ['backtick', '`'], ['hash', '#'], ['pipe', '|'], ['question_mark', '?'], ['dot', '.'],
  ],
  'separators and case are forgiven': [
    ['A', 'a'], ['Z', 'z'], ['+', '+'], ['page down', 'pagedown'], ['Page-Up', 'pageup'], ['Page Up', 'pageup'],
    ['Caps Lock', 'capslock'], ['print screen', 'printscreen'], ['Arrow Left', 'left'], ['Left Arrow', 'left'],
    ['Alt Gr', 'altgr'], ['Shift Left', 'shift'], ['left shift', 'shift'], ['right shift', 'shift_r'],
    ['Audio Volume Up', 'volume_up'], ['media play pause', 'media_play_pause'], ['  ctrl  ', 'ctrl'], ['Page__Up', 'pageup'],
  ],
}

for (const [dialect, table] of Object.entries(cases)) {
  t.test(dialect, async (t) => {
    for (const [input, expected] of table) t.equal(normalizeKey(input).name, expected, JSON.stringify(input))
  })
}

t.test('canonical keys carry their X keysym and name themselves', async (t) => {
  t.strictSame(normalizeKey('enter'), { name: 'enter', keysym: 'Return', modifier: false })
  t.strictSame(normalizeKey('ctrl'), { name: 'ctrl', keysym: 'Control_L', modifier: true })
  t.strictSame(normalizeKey('altgr'), { name: 'altgr', keysym: 'ISO_Level3_Shift', modifier: true })
  t.strictSame(normalizeKey('capslock'), { name: 'capslock', keysym: 'Caps_Lock', modifier: false })
  t.strictSame(normalizeKey('kp_enter'), { name: 'kp_enter', keysym: 'KP_Enter', modifier: false })
  t.strictSame(normalizeKey('pageup'), { name: 'pageup', keysym: 'Prior', modifier: false })
  t.strictSame(normalizeKey('volume_up'), { name: 'volume_up', keysym: 'XF86AudioRaiseVolume', modifier: false })
  t.strictSame(normalizeKey('!'), { name: '!', keysym: 'exclam', modifier: false })
  t.strictSame(normalizeKey('A'), { name: 'a', keysym: 'a', modifier: false })
  t.equal(new Set(CANONICAL_KEYS.map((k) => k.name)).size, CANONICAL_KEYS.length, 'names are unique')
  t.equal(new Set(CANONICAL_KEYS.map((k) => k.keysym)).size, CANONICAL_KEYS.length, 'keysyms are unique')
  t.strictSame(CANONICAL_KEYS.filter((k) => k.modifier).map((k) => k.name),
    ['shift', 'shift_r', 'ctrl', 'ctrl_r', 'alt', 'alt_r', 'super', 'super_r', 'altgr'])
  for (const key of CANONICAL_KEYS) {
    t.equal(normalizeKey(key.name), key, `${key.name} is itself`)
    t.equal(normalizeKey(key.keysym), key, `keysym ${key.keysym} is ${key.name}`)
    t.equal(key.name, key.name.toLowerCase(), `${key.name} is lower case`)
  }
})

t.test('lookups are case-insensitive for every name in the table', async (t) => {
  for (const [name, key] of KEY_TABLE) {
    t.equal(normalizeKey(name.toUpperCase()), key, `${JSON.stringify(name)} upper case`)
    t.equal(normalizeKey(name.charAt(0).toUpperCase() + name.slice(1)), key, `${JSON.stringify(name)} capitalised`)
  }
})

t.test('the alias table is unambiguous and points at real keys', async (t) => {
  const canonical = new Set(CANONICAL_KEYS.map((k) => k.name))
  const seen = new Map<string, string>()
  for (const [alias, target] of ALIAS_PAIRS) {
    t.ok(canonical.has(target), `${alias} → ${target} exists`)
    t.notOk(canonical.has(alias), `${JSON.stringify(alias)} is not itself a canonical name`)
    t.equal(alias, alias.toLowerCase(), `${alias} is written in lower case (lookups lower-case their input)`)
    t.notOk(seen.has(alias), `${JSON.stringify(alias)} is listed once (→ ${seen.get(alias)} and ${target})`)
    seen.set(alias, target)
  }
  // The lenient lookup rewrites separators; no rewrite may land on a different key.
  for (const [name, key] of KEY_TABLE) {
    for (const spelling of spellings(name)) {
      const other = KEY_TABLE.get(spelling)
      if (other) t.equal(other, key, `${name} and its spelling ${spelling} are one key`)
    }
  }
})

t.test('combos', async (t) => {
  const combos: Array<[combo: string, keys: string[], splitOnSpace?: boolean]> = [
    ['ctrl+shift+t', ['ctrl', 'shift', 't']],
    ['Control+C', ['ctrl', 'c']],
    ['CTRL+ALT+DELETE', ['ctrl', 'alt', 'delete']],
    ['cmd + c', ['super', 'c']],
    ['Shift_L+Page_Up', ['shift', 'pageup']],
    ['ctrl+page down', ['ctrl', 'pagedown']],
    ['alt+F4', ['alt', 'f4']],
    ['a', ['a']],
    ['Return', ['enter']],
    [' ', ['space']],
    ['+', ['+']],
    ['ctrl++', ['ctrl', '+']],
    ['ctrl + +', ['ctrl', '+']],
    ['ctrl+shift++', ['ctrl', 'shift', '+']],
    ['ctrl+++a', ['ctrl', '+', 'a']],
    ['+++', ['+', '+']],
    ['ctrl c', ['ctrl', 'c'], true],
    ['Ctrl  Shift   T', ['ctrl', 'shift', 't'], true],
    ['  ctrl c  ', ['ctrl', 'c'], true],
    ['ctrl+c', ['ctrl', 'c'], true],
    ['cmd + c', ['super', 'c'], true],
    ['shift ctrl arrowleft', ['shift', 'ctrl', 'left'], true],
    ['shift left', ['shift', 'left'], true],
    ['alt left', ['alt', 'left'], true],
    ['b s', ['b', 's'], true],
    ['page down', ['pagedown'], true],
    ['ctrl page down', ['ctrl', 'pagedown'], true],
    ['caps lock', ['capslock'], true],
    ['media play pause', ['media_play_pause'], true],
    [' ', ['space'], true],
    ['+', ['+'], true],
    ['ctrl++', ['ctrl', '+'], true],
  ]
  for (const [combo, expected, splitOnSpace] of combos) {
    const label = `${JSON.stringify(combo)}${splitOnSpace ? ' (split on space)' : ''}`
    t.strictSame(parseCombo(combo, { splitOnSpace: splitOnSpace ?? false }).map((k) => k.name), expected, label)
  }
  t.strictSame(parseCombo('shift left').map((k) => k.name), ['shift'], 'without splitOnSpace a spaced name is one key')
})

t.test('unknown keys and bad combos are a 400 that says what is wrong', async (t) => {
  const errors: Array<[run: () => unknown, message: string]> = [
    [() => normalizeKey('ctrll'), "unknown key 'ctrll' (closest known names: ctrl, ctrl_r, caret)"],
    [() => normalizeKey('entr'), "unknown key 'entr' (closest known names: enter, end, ctrl)"],
    [() => normalizeKey('shfit'), "unknown key 'shfit' (closest known names: shift, rshift, left)"],
    [() => normalizeKey('retrun'), "unknown key 'retrun' (closest known names: return, rctrl, ctrl)"],
    [() => normalizeKey('f25'), "unknown key 'f25' (closest known names: f15, f20, f21)"],
    [() => normalizeKey('hyphen'), "unknown key 'hyphen' (closest known names: yen, super, home)"],
    [() => normalizeKey(''), 'key name cannot be empty'],
    [() => normalizeKey('  '), "key name '  ' is blank; the space bar is 'space'"],
    [() => parseCombo(''), 'key name cannot be empty'],
    [() => parseCombo('ctrl+'), "key combo 'ctrl+' has an empty part; write keys joined by '+', like 'ctrl+shift+t'"],
    [() => parseCombo('+a'), "key combo '+a' has an empty part; write keys joined by '+', like 'ctrl+shift+t'"],
    [() => parseCombo('ctrl++shift+'), "key combo 'ctrl++shift+' has an empty part; write keys joined by '+', like 'ctrl+shift+t'"],
    [() => parseCombo('ctrl+ '), "key combo 'ctrl+ ' has an empty part; write keys joined by '+', like 'ctrl+shift+t'; " +
      "the space bar is 'space', like 'ctrl+space'"],
    [() => parseCombo('ctrl+entr'), "unknown key 'entr' in 'ctrl+entr' (closest known names: enter, end, ctrl)"],
    [() => parseCombo('ctrl foo', { splitOnSpace: true }), "unknown key 'foo' in 'ctrl foo' (closest known names: f10, f11, f12)"],
    [() => parseCombo('ctrl c'), "unknown key 'ctrl c' (closest known names: ctrl_r, ctrl_l, prt_sc; " +
      "keys pressed together are joined by '+', like 'ctrl+c')"],
  ]
  for (const [run, message] of errors) {
    t.throws(run, { name: 'FastifyError', code: 'ERR_UNKNOWN_KEY', statusCode: 400, message }, message)
  }
})

t.test('suggestions', async (t) => {
  t.strictSame(suggestKeys('ctrll'), ['ctrl', 'ctrl_r', 'caret'])
  t.strictSame(suggestKeys('ctrl', 1), ['ctrl'], 'an exact name comes first')
  t.strictSame(suggestKeys('arowleft'), ['arrowleft', 'altleft', 'parenleft'], 'an alias when it is the closest spelling')
  t.strictSame(suggestKeys('Page Upp'), ['page_up', 'pagedown', 'pause'], 'separators are normalised first')
  t.equal(suggestKeys('xyz', 5).length, 5)
  t.equal(new Set(suggestKeys('ctrl', 10).map((name) => normalizeKey(name).name)).size, 10, 'one name per key')
})
