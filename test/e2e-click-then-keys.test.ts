/**
 * A click and the keys right after it, in one batch, reach Chromium in that order. Gemini's
 * type_text_at is click, ctrl+a, Delete, then the text: with the keys sent at once after the
 * click, Chromium now and then handled ctrl+a before the click (its key events go straight to
 * the focused page; the click through a hit test that may be asynchronous), the click's caret
 * undid the selection, and the text was appended: 5 in 360 on this machine under load, the
 * oracle recording keydown Control, keydown a, then mousedown. Keys now wait until a click is
 * CLICK_TO_KEY_MS old (src/executor/keys-after-clicks.ts): 0 in 300.
 */
import t from 'tap'
import { oracleDesktop } from './helpers/desktop.ts'
import type { OracleEvent } from './helpers/oracle.ts'

const desktop = oracleDesktop(t)
const ROUNDS = 40
const of = (events: OracleEvent[], type: string) => events.filter((e) => e.type === type)

t.test(`type_text_at ${ROUNDS} times in the same textarea: each replaces the text, the click first`, async (t) => {
  const wrong: string[] = []
  for (let i = 0; i < ROUNDS; i++) {
    const text = `round ${i} Grüße`
    desktop.oracle.clear()
    const response = await desktop.app.inject({
      method: 'POST',
      url: '/computer/gemini',
      payload: { functionCall: { name: 'type_text_at', args: { x: 250, y: 150, text, press_enter: false } } },
    })
    if (response.statusCode !== 200) t.fail(response.body)
    const events = await desktop.oracle.until((e) => of(e, 'input').at(-1)?.value === text, 5000)
    const value = of(events, 'input').at(-1)?.value
    const order = events.filter((e) => e.type === 'mousedown' || (e.type === 'keydown' && e.key === 'Control')).map((e) => e.type)
    if (value !== text || order[0] !== 'mousedown') wrong.push(`${i}: ${JSON.stringify(value)}, first ${order.join(' ')}`)
  }
  t.strictSame(wrong, [], 'every round: the text replaced, the mousedown before ctrl')
})
