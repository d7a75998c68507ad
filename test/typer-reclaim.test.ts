/**
 * A text typer killed before close() leaves its spare keycodes bound; the next typer on the
 * display gives them back by the record the first left on the root window
 * (drivers/x11/typer-record.ts) — except a keycode rebound since by someone else. The record's
 * encoding and the check of what is still bound, on hand-made rows.
 */
import { execFile, fork } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { TextTyper } from '../drivers/x11/text-typer.ts'
import { decodeRecord, encodeRecord, leftBound, type RecordedBinding } from '../drivers/x11/typer-record.ts'
import { startDesktop } from './helpers/desktop.ts'

const run = promisify(execFile)
const U = (char: string) => 0x01000000 + char.codePointAt(0)!

t.test('the record reads back as written; what does not parse ends it', async (t) => {
  const bindings = new Map<number, RecordedBinding>([[93, { keysym: U('ж'), row: [] }], [156, { keysym: U('日'), row: [0x1008ff41, 0, 0x1008ff41] }]])
  const values = encodeRecord(bindings)
  t.same(values, [93, U('ж'), 0, 156, U('日'), 3, 0x1008ff41, 0, 0x1008ff41])
  t.same(decodeRecord(values), bindings)
  t.same(decodeRecord([...values, 300, 1, 0]), bindings, 'a keycode no X server has')
  t.same(decodeRecord([93, U('ж'), 5, 0]), new Map(), 'a row longer than the data')
})

t.test('what is still bound as recorded is given back; a keycode carrying anything else is left', async (t) => {
  const record = new Map<number, RecordedBinding>([
    [10, { keysym: U('ж'), row: [] }],
    [11, { keysym: U('日'), row: [0x1008ff41, 0, 0x1008ff41] }],
    [12, { keysym: U('λ'), row: [] }],
    [13, { keysym: U('é'), row: [] }],
    [14, { keysym: U('→'), row: [] }],
    [40, { keysym: U('ω'), row: [] }],
  ])
  const rows = [
    [U('ж'), U('ж'), U('ж'), U('ж'), 0, 0], // as bound, repeated for the second group
    [U('日'), 0, U('日'), 0], // XKB dropped the caseless second level
    [0x61, 0x41, 0x61, 0x41], // a layout's key now (setxkbmap since)
    [U('é'), U('É')], // another keysym beside it
    [0, 0, 0, 0], // already given back
  ]
  t.same(leftBound(record, 10, rows), [{ keycode: 10, row: [0, 0] }, { keycode: 11, row: [0x1008ff41, 0, 0x1008ff41] }])
})

t.test('a typer killed before close(): the next one gives its keycodes back, not one rebound since', async (t) => {
  const { display } = await startDesktop(t)
  const keymap = async () => (await run('xmodmap', ['-display', display, '-pke'])).stdout
  const before = await keymap()
  const emptyKeycodes = (map: string) => [...map.matchAll(/^keycode\s+(\d+) =\s*$/gm)].map((m) => Number(m[1]))
  const empty = emptyKeycodes(before)

  const dir = await mkdtemp(join(tmpdir(), 'cg-reclaim-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const script = join(dir, 'typer.mts')
  await writeFile(script, `
    import { TextTyper } from ${JSON.stringify(new URL('../drivers/x11/text-typer.ts', import.meta.url).pathname)}
    const typer = await TextTyper.open(${JSON.stringify(display)})
    await typer.type(${JSON.stringify('жщшыюяёэфцчйкгдлп')})
    process.send!('typed')
    setInterval(() => {}, 1000)
  `)
  const child = fork(script, [], { execArgv: ['--import=tsx'] })
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  await new Promise((resolve, reject) => {
    child.once('message', resolve)
    child.once('exit', (code) => reject(new Error(`the typing process exited with ${code}`)))
  })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await exited

  const left = await keymap()
  const stillEmpty = emptyKeycodes(left)
  t.equal(empty.length - stillEmpty.length, 17, `17 empty keycodes left bound (of ${empty.length})`)
  // Someone rebinds one of them meanwhile: it is theirs now.
  const taken = empty.find((k) => !stillEmpty.includes(k))!
  await run('xmodmap', ['-display', display, '-e', `keycode ${taken} = F20`])

  const typer = await TextTyper.open(display)
  t.teardown(() => typer.close())
  const after = await keymap()
  t.same(emptyKeycodes(after), empty.filter((k) => k !== taken), 'every other keycode is empty again')
  t.match(after, new RegExp(`^keycode\\s+${taken} = F20`, 'm'), 'the rebound one kept its key')
  await typer.type('жщ')
  t.equal(typer.boundKeycodes.size, 2, 'and the new typer binds them')
})
