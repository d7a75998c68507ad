/** The one key table (SPEC §3): every dialect's spelling folds into one canonical name. */
import t from 'tap'
import { ALIAS_PAIRS, CANONICAL_KEYS, normalizeKey, parseCombo } from '../src/keys/index.ts'

const dialects: Record<string, Array<[string, string]>> = {
  'xdotool keysyms (Anthropic)': [
    ['Return', 'enter'], ['KP_Enter', 'kp_enter'], ['BackSpace', 'backspace'], ['Prior', 'pageup'], ['Next', 'pagedown'],
    ['Page_Up', 'pageup'], ['Control_L', 'ctrl'], ['Control_R', 'ctrl_r'], ['Shift_L', 'shift'], ['Alt_L', 'alt'],
    ['super_l', 'super'], ['Super_L', 'super'], ['KP_0', 'kp_0'], ['KP_Add', 'kp_add'], ['Escape', 'escape'], ['Delete', 'delete'],
    ['XF86AudioRaiseVolume', 'volume_up'], ['XF86AudioMute', 'volume_mute'], ['XF86Back', 'browser_back'], ['Print', 'printscreen'],
    ['Caps_Lock', 'capslock'], ['ISO_Level3_Shift', 'altgr'], ['grave', '`'], ['minus', '-'], ['bracketleft', '['],
    ['apostrophe', "'"], ['exclam', '!'], ['at', '@'], ['asciitilde', '~'], ['F12', 'f12'], ['space', 'space'], ['Tab', 'tab'],
  ],
  'OpenAI / Playwright': [
    ['CTRL', 'ctrl'], ['CONTROL', 'ctrl'], ['ENTER', 'enter'], ['ESC', 'escape'], ['ARROWLEFT', 'left'], ['ArrowLeft', 'left'],
    ['ARROWUP', 'up'], ['PAGEUP', 'pageup'], ['PageDown', 'pagedown'], ['Meta', 'super'], ['CMD', 'super'], ['SPACE', 'space'],
    ['BACKSPACE', 'backspace'], ['DELETE', 'delete'], ['TAB', 'tab'], ['CAPSLOCK', 'capslock'], ['Shift', 'shift'], ['Alt', 'alt'],
    ['AudioVolumeUp', 'volume_up'], ['MediaPlayPause', 'media_play_pause'], ['BrowserBack', 'browser_back'], ['NumpadEnter', 'kp_enter'],
    ['Numpad0', 'kp_0'], ['NumpadAdd', 'kp_add'], ['Digit1', '1'], ['KeyA', 'a'], ['Insert', 'insert'], ['PrintScreen', 'printscreen'],
    ['ContextMenu', 'menu'], ['HOME', 'home'], ['END', 'end'],
  ],
  'HUD CLA, UI-TARS, Gemini': [
    ['ctrl', 'ctrl'], ['win', 'super'], ['pageup', 'pageup'], ['arrowleft', 'left'], ['esc', 'escape'], ['enter', 'enter'],
    ['Control', 'ctrl'], ['Enter', 'enter'], ['pagedown', 'pagedown'], ['backspace', 'backspace'], ['f1', 'f1'],
  ],
  'macOS words': [
    ['cmd', 'super'], ['command', 'super'], ['meta', 'super'], ['win', 'super'], ['windows', 'super'], ['option', 'alt'], ['opt', 'alt'],
  ],
  'common spellings': [
    ['return', 'enter'], ['del', 'delete'], ['pgup', 'pageup'], ['pgdn', 'pagedown'], ['ins', 'insert'], ['spacebar', 'space'],
    ['plus', '+'], ['left_arrow', 'left'], ['lctrl', 'ctrl'], ['prtsc', 'printscreen'], ['kp_plus', 'kp_add'], ['A', 'a'], ['Z', 'z'],
    ['+', '+'], ['page down', 'pagedown'], ['Page-Up', 'pageup'],
  ],
}

for (const [dialect, cases] of Object.entries(dialects)) {
  t.test(dialect, async (t) => {
    for (const [input, expected] of cases) t.equal(normalizeKey(input).name, expected, input)
  })
}

t.test('canonical keys carry their X keysym', async (t) => {
  t.strictSame(normalizeKey('enter'), { name: 'enter', keysym: 'Return', modifier: false })
  t.strictSame(normalizeKey('ctrl'), { name: 'ctrl', keysym: 'Control_L', modifier: true })
  t.strictSame(normalizeKey('kp_enter'), { name: 'kp_enter', keysym: 'KP_Enter', modifier: false })
  t.strictSame(normalizeKey('!'), { name: '!', keysym: 'exclam', modifier: false })
  t.equal(new Set(CANONICAL_KEYS.map((k) => k.name)).size, CANONICAL_KEYS.length, 'names are unique')
})

t.test('the alias table is unambiguous and points at real keys', async (t) => {
  const canonical = new Set(CANONICAL_KEYS.map((k) => k.name))
  const seen = new Map<string, string>()
  for (const [alias, target] of ALIAS_PAIRS) {
    t.ok(canonical.has(target), `${alias} → ${target} exists`)
    t.notOk(canonical.has(alias) && alias !== target, `${alias} is not itself another canonical key`)
    const before = seen.get(alias)
    if (before !== undefined) t.equal(before, target, `${alias} maps to one key only`)
    seen.set(alias, target)
  }
})

t.test('combos', async (t) => {
  const cases: Array<[string, string[], boolean?]> = [
    ['ctrl+shift+t', ['ctrl', 'shift', 't']],
    ['Control+C', ['ctrl', 'c']],
    ['CTRL+ALT+DELETE', ['ctrl', 'alt', 'delete']],
    ['cmd + c', ['super', 'c']],
    ['ctrl++', ['ctrl', '+']],
    ['+', ['+']],
    ['Return', ['enter']],
    ['ctrl c', ['ctrl', 'c'], true],
    ['shift ctrl arrowleft', ['shift', 'ctrl', 'left'], true],
  ]
  for (const [combo, expected, splitOnSpace] of cases) {
    t.strictSame(parseCombo(combo, { splitOnSpace: splitOnSpace ?? false }).map((k) => k.name), expected, combo)
  }
})

t.test('unknown keys are a 400 naming the key and the closest names', async (t) => {
  t.throws(() => normalizeKey('entr'), { statusCode: 400, code: 'ERR_UNKNOWN_KEY', message: "unknown key 'entr' (closest known names: enter, end, e)" })
  t.throws(() => normalizeKey('ctrll'), { message: "unknown key 'ctrll' (closest known names: ctrl, ctrl_r, super)" })
  t.throws(() => normalizeKey(''), { code: 'ERR_UNKNOWN_KEY', message: 'key name cannot be empty' })
  t.throws(() => parseCombo('ctrl+'), { message: "key combo 'ctrl+' has an empty part; write keys joined by '+', like 'ctrl+shift+t'" })
  t.throws(() => parseCombo('ctrl c'), { message: /^unknown key 'ctrl c'/ }, 'spaces split only when asked')
})
