/**
 * Building the app and compiling its schemas leaves V8 room for new hidden classes of plain
 * objects. Ajv's code optimiser, on by default, filled the plain `{}` map's transitions (1 536)
 * with the names of its generated variables; from then until a full collection, every object
 * built from `{}` key by key (node-x11's replies, a move's QueryPointer among them) got a new
 * map each time, ~20x slower (src/schemas/ajv-code.ts). Two objects built alike share a map
 * only while the transition can still be recorded.
 */
import { setFlagsFromString } from 'node:v8'
import t from 'tap'
import { build, post } from './helpers/build.ts'

setFlagsFromString('--allow-natives-syntax')
// V8's own check of two objects' hidden classes, parsed only with the flag above.
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean

/** Whether objects built from `{}` with a key never used before share one hidden class. */
function newKeysShareMaps (count: number): boolean[] {
  const results: boolean[] = []
  for (let i = 0; i < count; i++) {
    const key = `probe_${process.hrtime.bigint()}_${i}`
    const a: Record<string, number> = {}
    a[key] = 1
    const b: Record<string, number> = {}
    b[key] = 2
    results.push(haveSameMap(a, b))
  }
  return results
}

t.test('the probe sees shared hidden classes in a fresh process', async (t) => {
  t.same(newKeysShareMaps(20), Array(20).fill(true))
})

t.test('compiling every schema a move, a batch and the dialects use leaves plain objects their hidden classes', async (t) => {
  const { app } = await build(t)
  const answers = [
    await post(app, '/computer', { action: 'move_mouse', coordinates: [10, 10] }),
    await post(app, '/computer/batch', { actions: [{ action: 'move_mouse', coordinates: [10, 10] }, { action: 'take_screenshot' }] }),
    await post(app, '/computer', { action: 'no_such_action' }),
    await post(app, '/computer/anthropic?tool_version=computer_20251124', { type: 'tool_use', id: 'toolu_1', name: 'computer', input: { action: 'mouse_move', coordinate: [10, 20] } }),
    await post(app, '/computer/operator', { action: 'move', loc: [10, 20] }),
  ]
  t.same(answers.map((answer) => answer.status), [200, 200, 400, 200, 200])
  t.same(newKeysShareMaps(20), Array(20).fill(true))
})
