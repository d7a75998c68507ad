/**
 * Text with more distinct characters off the keymap than Xvfb has empty keycodes (19) is bound
 * in one go: the keycodes of vendor keys no virtual desktop has (VENDOR_SPARE_KEYS) are bound
 * too, and close() gives them their keys back, leaving the keymap as it found it.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import { TextTyper } from '../drivers/x11/text-typer.ts'
import { VENDOR_SPARE_KEYS } from '../drivers/x11/typing-plan.ts'
import { startDesktop } from './helpers/desktop.ts'

const run = promisify(execFile)

t.test('vendor keycodes take what the empty ones cannot hold, and get their keys back on close', async (t) => {
  const { display } = await startDesktop(t)
  const keymap = async () => (await run('xmodmap', ['-display', display, '-pke'])).stdout
  const before = await keymap()
  const empty = [...before.matchAll(/^keycode\s+\d+ =\s*$/gm)].length
  const vendor = Object.keys(VENDOR_SPARE_KEYS).filter((name) => new RegExp(`= ${name}\\b`).test(before))
  t.ok(empty < 25 && vendor.length >= 5, `${empty} empty keycodes, vendor keys ${vendor.join(' ')}`)

  const typer = await TextTyper.open(display)
  t.teardown(() => typer.close())
  // As many distinct letters no us keycode carries as there are empty and vendor keycodes.
  const text = [...'абвгдежзийклмнопрстуфхцчшщъыьэюя'].slice(0, empty + vendor.length).join('')
  t.equal([...text].length, empty + vendor.length)
  await typer.type(text)
  const bound = await keymap()
  for (const name of vendor) t.notMatch(bound, new RegExp(`= ${name}\\b`), `${name}'s keycode was bound`)
  t.equal(typer.boundKeycodes.size, [...text].length, 'one keycode each: typed in one binding')
  await typer.close()
  // Closing again (as a teardown may), before X has ended the connection: the same close, at once.
  await typer.close()
  t.equal(await keymap(), before, 'the keymap is as it was')
})
