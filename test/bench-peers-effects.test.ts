/**
 * The pure parts of the peers bench's newer rows (bench/peers/): the effect checkers that say
 * whether a typed line, a selection or a photo arrived, the table's row, the footprint's
 * lines, and the quiet-machine gate's reading of /proc/loadavg. The bench itself runs in
 * `npm run bench`, not here.
 */
import t from 'tap'
import { ASCII_LINE, lastLine, photoEffect, PHOTO_TOLERANCE, selectionEffect, treeNodes, typedEffect, type RawImage } from '../bench/peers/effects.ts'
import { footprintLines, type Footprint } from '../bench/peers/footprint.ts'
import { formatRow, type PeerRow } from '../bench/peers/peers.ts'
import { ourNodes } from '../bench/peers/office.ts'
import { loadBound, quietVerdict } from '../bench/quiet.ts'

t.test('the ASCII line is every printable ASCII character once, in order', async (t) => {
  t.equal(ASCII_LINE.length, 95)
  t.equal(ASCII_LINE[0], ' ')
  t.equal(ASCII_LINE.at(-1), '~')
  t.equal(new Set(ASCII_LINE).size, 95)
})

t.test('typedEffect: exact, nothing, a dropped character, a swapped one', async (t) => {
  const cases: Array<[string, string, string, string | undefined]> = [
    ['exact', 'a"b\\c', 'a"b\\c', undefined],
    ['nothing arrived', 'abc', '', 'typed 0 of 3 characters, from code point 0: expected "abc", got ""'],
    ['one dropped', 'Grüße', 'Grüe', 'typed 4 of 5 characters, from code point 3: expected "ße", got "e"'],
    ['one swapped, astral counted as one', '✓ ok😀', '— ok😀', 'typed 5 of 5 characters, from code point 0: expected "✓ ok😀", got "— ok😀"'],
  ]
  for (const [name, expected, actual, message] of cases) t.equal(typedEffect(expected, actual), message, name)
})

t.test('lastLine: the line cat wrote last', async (t) => {
  const cases: Array<[string, string, string]> = [
    ['one line', 'abc\n', 'abc'],
    ['the last of several', 'one\ntwo\nthree\n', 'three'],
    ['an empty last line', 'one\n\n', ''],
    ['nothing yet', '', ''],
    ['a line not ended', 'one\ntw', 'tw'],
  ]
  for (const [name, file, line] of cases) t.equal(lastLine(file), line, name)
})

t.test('selectionEffect: the words, nothing selected, other words', async (t) => {
  const cases: Array<[string, string, string | undefined]> = [
    ['the word', 'bravo', undefined],
    ['nothing selected', 'SENTINEL', 'nothing selected (the primary selection still holds what the bench put there)'],
    ['a neighbour', 'alpha bravo', 'selected "alpha bravo", not "bravo"'],
    ['a line', 'alpha bravo charlie delta echo and more text past forty characters', 'selected "alpha bravo charlie delta echo and more ", not "bravo"'],
  ]
  for (const [name, primary, message] of cases) t.equal(selectionEffect('bravo', primary, 'SENTINEL'), message, name)
})

const image = (width: number, height: number, channels: number, pixel: (x: number, y: number, c: number) => number): RawImage => {
  const data = new Uint8Array(width * height * channels)
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) for (let c = 0; c < channels; c++) data[(y * width + x) * channels + c] = pixel(x, y, c)
  return { width, height, channels, data }
}

t.test('photoEffect: the photo on the screen, a few levels off, shifted, another picture', async (t) => {
  const photo = image(160, 100, 3, (x, y, c) => (x * 7 + y * 13 + c * 50) % 256)
  t.equal(photoEffect(photo, photo), undefined, 'itself')
  t.equal(photoEffect(photo, image(160, 100, 4, (x, y, c) => (c === 3 ? 255 : Math.min(255, photo.data[(y * 160 + x) * 3 + c]! + 5)))), undefined, 'five levels brighter, with alpha')
  t.equal(photoEffect(photo, image(200, 120, 3, (x, y, c) => (x < 160 && y < 100 ? photo.data[(y * 160 + x) * 3 + c]! : 0))), undefined, 'on a larger screen, at its origin')
  t.equal(photoEffect(photo, image(160, 100, 3, () => 0)), `the photo is not on the screen: a mean difference of ${meanOf(photo).toFixed(1)} levels over 160 points of the top-left 160x100 (at most ${PHOTO_TOLERANCE})`, 'a black screen')
  t.equal(photoEffect(photo, image(160, 100, 3, (x, y, c) => (x < 80 && y < 50 ? photo.data[(y * 160 + x) * 3 + c]! : 0)), { width: 80, height: 50 }), undefined, 'within the area asked, black past it')
  t.match(photoEffect(photo, image(160, 100, 3, (x, y, c) => photo.data[(y * 160 + Math.max(0, x - 3)) * 3 + c]!)), /^the photo is not on the screen: a mean difference of/, 'shifted three pixels right')
})

/** The mean level of the grid points photoEffect samples: its difference from a black screen. */
function meanOf (photo: RawImage): number {
  let sum = 0
  for (let gy = 0; gy < 10; gy++) for (let gx = 0; gx < 16; gx++) for (let c = 0; c < 3; c++) sum += photo.data[(Math.floor((gy + 0.5) * 10) * 160 + Math.floor((gx + 0.5) * 10)) * 3 + c]!
  return sum / 480
}

t.test("treeNodes counts cua's tree; ourNodes counts our snapshot's ids", async (t) => {
  t.equal(treeNodes({ role: 'Window', title: 'Linux Window', children: [] }), 1, "cua's placeholder")
  t.equal(treeNodes({ children: [{ children: [{}, {}] }, { children: 'x' }] }), 5)
  t.equal(treeNodes(null), 0)
  t.equal(ourNodes('{"id":"e1","children":[{"id":"e2"},{"id":"e13","name":"id:e4"}]}'), 3)
})

t.test('formatRow: cells, floor, ratios; a failed peer, a missing one', async (t) => {
  const peers = ['ours', 'cua computer-server', 'OpenAI sample (xdotool)']
  const row: PeerRow = {
    kind: 'double click a word (xterm)',
    results: {
      ours: { p50: 12.5, p99: 30, n: 3, effective: 3 },
      'cua computer-server': { p50: 250, p99: 1200, n: 3, effective: 1, firstMiss: 'nothing selected' },
      'OpenAI sample (xdotool)': { error: 'xdotool: exit 1' },
    },
    floor: { p50: 4, n: 3 },
  }
  t.equal(formatRow(row, peers), 'double click a word (xterm) | 12.5 / 30.0 (3/3) | 250.0 / 1200 (1/3) | failed: xdotool: exit 1 | 4.00 | 3.1x | 20.0x | —')
  const shot: PeerRow = { kind: 'screenshot PNG, photo in Firefox', results: { ours: { p50: 40, p99: 44, n: 1, effective: 1 } } }
  t.equal(formatRow(shot, peers), 'screenshot PNG, photo in Firefox | 40.0 / 44.0 (1/1) | not measured | not measured | bench/screens.ts | — | — | —')
})

t.test('footprintLines: memory by part, desktops per GiB, CPU per 1000 moves as ratios', async (t) => {
  const footprint: Footprint = {
    memory: { xvfb: 40, windowManager: 4, browser: 300, ours: 100, cua: 60 },
    perGiB: { ours: 1024 / 444, cua: 1024 / 404 },
    cpuPer1000Moves: { moves: 1000, ours: { server: 600, xvfb: 90 }, cua: { server: 1800, xvfb: 120 }, emptyPost: 200 },
  }
  t.strictSame(footprintLines(footprint), [
    'density (PSS MB by part, this desktop; OSWorld pyautogui per call and the xdotool loops keep no process between actions):',
    '  ours: Xvfb 40.0 + window manager (jwm) 4.0 + browser (Chromium) 300.0 + server + worker 100.0 = 444.0 MB, 2.31 desktops per GiB',
    '  cua computer-server: Xvfb 40.0 + window manager (jwm) 4.0 + browser (Chromium) 300.0 + server 60.0 = 404.0 MB, 2.53 desktops per GiB; its server 0.60x ours',
    'CPU per 1000 moves (1000 each, /proc/PID/stat, ticks of 10 ms): ours 600 ms (+ Xvfb 90); empty Fastify POST 200 ms; ours ÷ empty POST 3.0x; cua move_cursor 1800 ms (+ Xvfb 120), cua ÷ ours 3.0x, cua ÷ empty POST 9.0x',
  ])
  const { cua: _cua, ...memory } = footprint.memory
  t.strictSame(footprintLines({ memory, perGiB: { ours: 1 }, cpuPer1000Moves: { moves: 10, ours: { server: 10, xvfb: 0 }, emptyPost: 0 } }).at(-1),
    'CPU per 1000 moves (10 each, /proc/PID/stat, ticks of 10 ms): ours 10 ms (+ Xvfb 0); empty Fastify POST 0 ms; ours ÷ empty POST —')
})

t.test('the quiet-machine gate reads the 1-minute load against its bound', async (t) => {
  t.strictSame(quietVerdict('0.40 1.20 2.00 1/300 4242\n', 0.5), { quiet: true, load1: 0.4, bound: 0.5, message: 'quiet machine: 1-minute load average 0.40 (bound 0.50)' })
  t.strictSame(quietVerdict('21.31 19.02 18.50 7/900 4242\n', 0.5), {
    quiet: false, load1: 21.31, bound: 0.5,
    message: 'not a quiet machine: 1-minute load average 21.31 is above 0.50; final numbers are not measured here (run with --quick for figures labelled as such, or wait, or set BENCH_MAX_LOAD)',
  })
  t.equal(quietVerdict('0.50 0 0', 0.5).quiet, true, 'the bound itself is quiet')
  t.throws(() => quietVerdict('', 1), { message: 'cannot read the load average from ""' })
  t.throws(() => quietVerdict('high 1 1', 1), { message: 'cannot read the load average from "high 1 1"' })
  t.equal(loadBound({}, 2), 0.5, 'a quarter per core by default')
  t.equal(loadBound({ BENCH_MAX_LOAD: '3' }, 2), 3)
  t.equal(loadBound({ BENCH_MAX_LOAD: '' }, 4), 1)
  for (const bad of ['-1', 'high', 'NaN']) t.throws(() => loadBound({ BENCH_MAX_LOAD: bad }, 2), { message: `BENCH_MAX_LOAD must be a number of runnable processes ≥ 0, not ${JSON.stringify(bad)}` }, bad)
})
