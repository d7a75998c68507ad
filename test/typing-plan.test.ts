/**
 * The typing planner on hand-made keymaps: layout characters are pressed where the layout
 * has them, everything else is bound to spare keycodes two to a keycode, in as few phases as
 * the spare keycodes allow, and bindings left by earlier text are reused or dropped.
 */
import t from 'tap'
import { keysymsFor, unicodeKeysym } from '../drivers/x11/char-keysyms.ts'
import { liveKeys, planTyping, type Bound } from '../drivers/x11/typing-plan.ts'

const SHIFT = 0xffe1
// keycode 10: a A; 11: 1 !; 12: Return; 13: Tab; 14: Shift_L; 15: space; 16: Cyrillic_ef (ф Ф); 17–19: spare; 20: KP_1 KP_End
const rows = [
  [0x61, 0x41, 0x61, 0x41, 0, 0, 0], [0x31, 0x21, 0x31, 0x21, 0, 0, 0], [0xff0d, 0, 0xff0d, 0, 0, 0, 0], [0xff09, 0xfe20, 0, 0, 0, 0, 0],
  [SHIFT, 0, SHIFT, 0, 0, 0, 0], [0x20, 0, 0x20, 0, 0, 0, 0], [0x6c6, 0x6e6, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], [0xffb1, 0xff9c, 0, 0, 0, 0, 0],
]
const mapping = { minKeycode: 10, rows }

t.test('keysyms: Latin-1 is its code point, the rest Unicode keysyms, legacy names found too', async (t) => {
  t.equal(unicodeKeysym('é'), 0xe9)
  t.equal(unicodeKeysym('日'), 0x01000000 + 0x65e5)
  t.equal(unicodeKeysym('😀'), 0x01000000 + 0x1f600)
  t.equal(unicodeKeysym('\n'), 0xff0d)
  t.strictSame(keysymsFor('ф'), [0x01000444, 0x6c6], 'Cyrillic_ef as keysymdef.h names it')
  t.strictSame(keysymsFor('€'), [0x010020ac, 0x20ac], 'EuroSign')
})

t.test('layout characters are pressed where the layout has them, level 2 with Shift', async (t) => {
  const keys = liveKeys(mapping, new Map())
  t.strictSame(keys.spare, [17, 18, 19])
  t.equal(keys.shiftKeycode, 14)
  const phases = planTyping('aA1!\n\t ф', keys, new Map())
  t.strictSame(phases, [{
    bind: [],
    strokes: [
      { keycode: 10, shift: false }, { keycode: 10, shift: true }, { keycode: 11, shift: false }, { keycode: 11, shift: true },
      { keycode: 12, shift: false }, { keycode: 13, shift: false }, { keycode: 15, shift: false }, { keycode: 16, shift: false },
    ],
  }], 'ASCII and the layout\'s own Cyrillic need no binding')
})

t.test('with pairs, other characters are bound two to a spare keycode; phases when they run out', async (t) => {
  const bound: Bound = new Map()
  const keys = liveKeys(mapping, bound)
  const [e, E, j, k, l, m, n] = ['é', 'É', '日', '本', '語', 'の', 'テ'].map(unicodeKeysym)
  const phases = planTyping('éÉa日本語のテ', keys, bound, { pairs: true })
  t.strictSame(phases, [
    {
      bind: [{ keycode: 17, keysyms: [e, E] }, { keycode: 18, keysyms: [j, k] }, { keycode: 19, keysyms: [l, m] }],
      strokes: [
        { keycode: 17, shift: false }, { keycode: 17, shift: true }, { keycode: 10, shift: false },
        { keycode: 18, shift: false }, { keycode: 18, shift: true }, { keycode: 19, shift: false }, { keycode: 19, shift: true },
      ],
    },
    // Keycode 17 was used least recently: it is rebound, never one this phase relies on.
    { bind: [{ keycode: 17, keysyms: [n, n] }], strokes: [{ keycode: 17, shift: false }] },
  ])
  t.strictSame([...bound], [[17, [n, n]], [18, [j, k]], [19, [l, m]]], 'bound reflects the state after the last phase')

  const again = planTyping('本語', keys, bound, { pairs: true })
  t.strictSame(again, [{ bind: [], strokes: [{ keycode: 18, shift: true }, { keycode: 19, shift: false }] }], 'still bound: no binding needed')
})

t.test('by default one character per spare keycode, on both levels, so Shift or case conversion cannot change it', async (t) => {
  const bound: Bound = new Map()
  const phases = planTyping('Üü日本', liveKeys(mapping, bound), bound)
  const [U, u, j, k] = ['Ü', 'ü', '日', '本'].map(unicodeKeysym)
  t.strictSame(phases, [
    {
      bind: [{ keycode: 17, keysyms: [U, U] }, { keycode: 18, keysyms: [u, u] }, { keycode: 19, keysyms: [j, j] }],
      strokes: [{ keycode: 17, shift: false }, { keycode: 18, shift: false }, { keycode: 19, shift: false }],
    },
    { bind: [{ keycode: 17, keysyms: [k, k] }], strokes: [{ keycode: 17, shift: false }] },
  ])
})

t.test('bindings the keymap no longer shows (setxkbmap replaced it) are forgotten', async (t) => {
  const bound: Bound = new Map([[17, [0xe9, 0xc9]], [18, [0x010065e5, 0x010065e5]]])
  const replaced = rows.map((row) => [...row])
  replaced[7] = [0xe9, 0xc9, 0xe9, 0xc9, 0, 0, 0] // keycode 17 still ours (repeated for group 2)
  replaced[8] = [0x71, 0x51, 0, 0, 0, 0, 0] // keycode 18 now a layout key
  const keys = liveKeys({ minKeycode: 10, rows: replaced }, bound)
  t.strictSame([...bound.keys()], [17])
  t.strictSame(keys.spare, [17, 19])
  t.notOk(keys.strokes.has(0xe9), 'our own binding is not mistaken for a layout key')
})

t.test('keypad keys are not used for their second level (it needs NumLock, not Shift)', async (t) => {
  const keys = liveKeys(mapping, new Map())
  t.notOk(keys.strokes.has(0xff9c))
  t.strictSame(keys.strokes.get(0xffb1), { keycode: 20, shift: false })
})

t.test('no spare keycode at all is an error that says so', async (t) => {
  const full = { minKeycode: 10, rows: rows.filter((row) => row.some(Boolean)) }
  t.throws(() => planTyping('日', liveKeys(full, new Map()), new Map()), { message: 'no spare keycode to bind U+65E5 to: the keymap has no empty keycodes' })
})

t.test('keycodes of vendor keys no virtual desktop has are spare after the empty ones; other vendor keys are not', async (t) => {
  const launch1 = 0x1008ff41
  const copy = 0x1008ff57
  // keycode 21: XF86Launch1 (as Xvfb's keymap repeats it), 22: XF86Copy, 23: XF86Launch1 beside a letter.
  const withVendor = { minKeycode: 10, rows: [...rows, [launch1, 0, launch1, 0, 0, 0, 0], [copy, 0, copy, 0, 0, 0, 0], [0x62, launch1, 0, 0, 0, 0, 0]] }
  const keys = liveKeys(withVendor, new Map())
  t.strictSame(keys.spare, [17, 18, 19, 21], 'empty keycodes first')
  t.strictSame([...keys.vendor], [[21, [launch1, 0, launch1, 0, 0, 0, 0]]], 'what it carried, to give it back')
  t.strictSame(keys.strokes.get(launch1), { keycode: 21, shift: false }, 'still pressable while nothing is bound to it')
  const bound: Bound = new Map()
  const phases = planTyping('éèêë', keys, bound)
  t.strictSame(phases.map((phase) => phase.bind.map((b) => b.keycode)), [[17, 18, 19, 21]], 'four characters in one binding')
  t.strictSame(phases[0]!.strokes.map((s) => s.keycode), [17, 18, 19, 21])
  const now = new Map([[17, 0xe9], [18, 0xe8], [19, 0xea], [21, 0xeb]])
  const after = { minKeycode: 10, rows: withVendor.rows.map((row, i) => now.has(10 + i) ? [now.get(10 + i)!, now.get(10 + i)!, 0, 0, 0, 0, 0] : row) }
  const again = liveKeys(after, bound)
  t.strictSame(again.spare, [17, 18, 19, 21], 'once bound it is ours, as an empty keycode is')
  t.strictSame(again.vendor.size, 0)
  t.notOk([...again.strokes.values()].some((stroke) => stroke.keycode === 21), 'no layout key is looked for on it')
  t.strictSame(again.strokes.get(launch1), { keycode: 23, shift: true }, 'a keycode that carries a vendor key beside others is never spare')
})
