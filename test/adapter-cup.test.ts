/**
 * The cup adapter: CUP action specs, one or a batch, → unified actions (translate route, whole
 * bodies, from test/fixtures/cup), outcomes → CUP ActionResults (execute route over the fake
 * driver), and every refusal with its whole body — element verbs above all.
 */
import { readFileSync } from 'node:fs'
import t from 'tap'
import { cupAdapter } from '../adapters/cup/index.ts'
import { build, post } from './helpers/build.ts'

interface Case { name: string, source: string, payload: unknown, actions: unknown[], steps: unknown[], batch?: boolean }
const { cases } = JSON.parse(readFileSync(new URL('./fixtures/cup/translate.json', import.meta.url), 'utf8')) as { cases: Case[] }

const badRequest = (code: string, message: string) => ({ statusCode: 400, code, error: 'Bad Request', message })

const ACTION_LIST = 'press_keys, press, wait, click, collapse, decrement, dismiss, doubleclick, expand, focus, increment, longpress, rightclick, scroll, select, setvalue, toggle, type'
const needsTree = (action: string, id: string, where = '') =>
  badRequest('ERR_UNSUPPORTED_ACTION', `${where}cup: "${action}" on element "${id}" needs the accessibility tree, which this server does not read yet; only press_keys and wait run here`)

t.test('translate: recorded CUP specs become unified actions', async (t) => {
  const { app, driver } = await build(t, { adapters: [cupAdapter] })
  for (const c of cases) {
    const { status, body } = await post(app, '/computer/cup/translate', c.payload)
    t.equal(status, 200, c.name)
    t.strictSame(body, {
      adapter: 'cup',
      version: 'cup_0_1',
      actions: c.actions,
      screenshot: false,
      display_width_px: 1280,
      display_height_px: 800,
      meta: { batch: c.batch ?? false, steps: c.steps },
    }, `${c.name} (${c.source})`)
  }
  t.strictSame(driver.calls, [], 'translating runs nothing')
})

const refusals: Array<{ name: string, payload: unknown, url?: string, body: ReturnType<typeof badRequest> }> = [
  {
    name: 'an element click (typescript-sdk tests/batch.test.ts)',
    payload: { element_id: 'e14', action: 'click' },
    body: needsTree('click', 'e14'),
  },
  {
    name: 'an element type with its value (typescript-sdk tests/batch.test.ts)',
    payload: { element_id: 'e5', action: 'type', value: 'hello' },
    body: needsTree('type', 'e5'),
  },
  {
    name: 'a scroll of an element (python-sdk docs/api-reference.md)',
    payload: { element_id: 'e9', action: 'scroll', direction: 'down' },
    body: needsTree('scroll', 'e9'),
  },
  {
    name: 'the documented batch, refused whole at its first element verb (python-sdk docs/api-reference.md)',
    payload: [
      { element_id: 'e3', action: 'click' },
      { action: 'wait', ms: 500 },
      { element_id: 'e7', action: 'type', value: 'hello' },
      { action: 'press_keys', keys: 'enter' },
    ],
    body: needsTree('click', 'e3', 'actions[0]: '),
  },
  {
    name: 'a batch whose element verb comes after key presses',
    payload: [{ action: 'press_keys', keys: 'ctrl+a' }, { element_id: 'e2', action: 'setvalue', value: '42' }],
    body: needsTree('setvalue', 'e2', 'actions[1]: '),
  },
  {
    name: 'every other element verb',
    payload: { element_id: 'e0', action: 'longpress' },
    body: needsTree('longpress', 'e0'),
  },
  {
    name: 'an element verb without element_id (python-sdk tests/test_batch.py)',
    payload: { action: 'click' },
    body: badRequest('ERR_INVALID_PAYLOAD', "cup: missing required field 'element_id' for action 'click'"),
  },
  {
    name: 'press_keys without keys (python-sdk tests/test_batch.py)',
    payload: { action: 'press_keys' },
    body: badRequest('ERR_INVALID_PAYLOAD', "cup: missing required field 'keys' for action 'press_keys'"),
  },
  {
    name: 'press_keys with empty keys',
    payload: { action: 'press_keys', keys: '' },
    body: badRequest('ERR_INVALID_PAYLOAD', "cup: keys must be a key combination such as 'ctrl+s'"),
  },
  {
    name: 'an element id that is not one',
    payload: { element_id: '14', action: 'toggle' },
    body: badRequest('ERR_INVALID_PAYLOAD', 'cup: element_id must be a CUP element id such as "e14"'),
  },
  {
    name: 'a type without its value',
    payload: { element_id: 'e5', action: 'type' },
    body: badRequest('ERR_INVALID_PAYLOAD', "cup: missing required field 'value' for action 'type'"),
  },
  {
    name: 'a scroll direction CUP does not have',
    payload: { element_id: 'e5', action: 'scroll', direction: 'sideways' },
    body: badRequest('ERR_INVALID_PAYLOAD', "cup: direction must be one of 'up', 'down', 'left', 'right'"),
  },
  {
    name: 'an unknown action',
    payload: { action: 'hover', element_id: 'e1' },
    body: badRequest('ERR_INVALID_PAYLOAD', `cup: unknown action "hover" (one of: ${ACTION_LIST})`),
  },
  {
    name: 'no action',
    payload: { keys: 'ctrl+s' },
    body: badRequest('ERR_INVALID_PAYLOAD', `cup: missing field 'action' (one of: ${ACTION_LIST})`),
  },
  {
    name: 'a field the action does not take',
    payload: { action: 'wait', ms: 100, keys: 'a' },
    body: badRequest('ERR_INVALID_PAYLOAD', "cup: unknown field 'keys' for action 'wait' (allowed: action, ms)"),
  },
  {
    name: 'a wait of text',
    payload: { action: 'wait', ms: '500' },
    body: badRequest('ERR_INVALID_PAYLOAD', 'cup: ms must be a number of milliseconds'),
  },
  {
    name: 'a bad spec inside a batch',
    payload: [{ action: 'wait' }, { action: 'press_keys' }],
    body: badRequest('ERR_INVALID_PAYLOAD', "cup: missing required field 'keys' for action 'press_keys'"),
  },
  {
    name: 'a batch item that is not an object',
    payload: ['ctrl+s'],
    body: badRequest('ERR_INVALID_PAYLOAD', 'cup: [0] must be object'),
  },
  {
    name: 'a screenshot asked for, which CUP results cannot carry',
    url: '?screenshot=true',
    payload: { action: 'press_keys', keys: 'ctrl+s' },
    body: badRequest('ERR_INVALID_QUERY', 'cup: CUP action results carry no image (its screenshot is a tool of its own); take one with POST /computer {"action": "take_screenshot"}'),
  },
]

t.test('refusals before anything runs are the usual error body, on both routes', async (t) => {
  const { app, driver } = await build(t, { adapters: [cupAdapter] })
  for (const r of refusals) {
    for (const url of ['/computer/cup/translate', '/computer/cup']) {
      const { status, body } = await post(app, url + (r.url ?? ''), r.payload)
      t.equal(status, 400, `${r.name} (${url})`)
      t.strictSame(body, r.body, `${r.name} (${url})`)
    }
  }
  t.strictSame(driver.calls, [])
})

t.test('execute: one press_keys answers one ActionResult', async (t) => {
  const { app, driver } = await build(t, { adapters: [cupAdapter] })
  const { status, body } = await post(app, '/computer/cup', { action: 'press_keys', keys: 'ctrl+s' })
  t.equal(status, 200)
  t.strictSame(body, { success: true, message: 'Pressed ctrl+s', error: null })
  t.strictSame(driver.calls, [
    { call: 'keyDown', key: 'ctrl' },
    { call: 'keyDown', key: 's' },
    { call: 'keyUp', key: 's' },
    { call: 'keyUp', key: 'ctrl' },
  ])
})

t.test('execute: a batch answers one result per action, in order', async (t) => {
  const { app, driver } = await build(t, { adapters: [cupAdapter] })
  const started = performance.now()
  const { status, body } = await post(app, '/computer/cup', [
    { action: 'press_keys', keys: 'tab' },
    { action: 'wait', ms: 10 },
    { action: 'press', keys: 'Enter' },
  ])
  t.equal(status, 200)
  t.ok(performance.now() - started >= 50, 'the wait is clamped to 50 ms, as the SDKs do')
  t.strictSame(body, [
    { success: true, message: 'Pressed tab', error: null },
    { success: true, message: 'Waited 50ms', error: null },
    { success: true, message: 'Pressed Enter', error: null },
  ])
  t.strictSame(driver.calls, [
    { call: 'keyDown', key: 'tab' },
    { call: 'keyUp', key: 'tab' },
    { call: 'keyDown', key: 'enter' },
    { call: 'keyUp', key: 'enter' },
  ])
})

t.test('execute: an empty batch runs nothing and answers an empty list', async (t) => {
  const { app, driver } = await build(t, { adapters: [cupAdapter] })
  const { status, body } = await post(app, '/computer/cup', [])
  t.equal(status, 200)
  t.strictSame(body, [])
  t.strictSame(driver.calls, [])
})

t.test('execute: a batch stops at the failing action, whose result carries the error', async (t) => {
  const { app, driver } = await build(t, { adapters: [cupAdapter] })
  driver.setBeforeCall((call) => { if (call.call === 'keyDown' && call.key === 'enter') throw new Error('keyboard unplugged') })
  const { status, body } = await post(app, '/computer/cup', [
    { action: 'press_keys', keys: 'tab' },
    { action: 'press_keys', keys: 'enter' },
    { action: 'press_keys', keys: 'tab' },
  ])
  t.equal(status, 500)
  t.strictSame(body, [
    { success: true, message: 'Pressed tab', error: null },
    { success: false, message: '', error: "Failed to press keys 'enter': the driver failed: keyboard unplugged" },
  ])
  t.strictSame(driver.calls.map((c) => c.call), ['keyDown', 'keyUp', 'keyUp'], 'tab pressed; enter released after its failed press; the third never ran')
})

t.test('execute: an unknown key refuses the request before any input, answered natively', async (t) => {
  const { app, driver } = await build(t, { adapters: [cupAdapter] })
  const single = await post(app, '/computer/cup', { action: 'press_keys', keys: 'ctrl+hyperspace' })
  t.equal(single.status, 400)
  t.match(single.body.error, /^unknown key 'hyperspace'/)
  t.strictSame(single.body, { success: false, message: '', error: single.body.error })

  const batch = await post(app, '/computer/cup', [{ action: 'press_keys', keys: 'tab' }, { action: 'press_keys', keys: 'hyperspace' }])
  t.equal(batch.status, 400)
  t.match(batch.body[0]?.error, /^unknown key 'hyperspace' \(closest known names: /)
  t.strictSame(batch.body, [{ success: false, message: '', error: batch.body[0]?.error }], 'one failed result: the batch was refused whole')
  t.strictSame(driver.calls, [], 'nothing ran: the batch is planned whole first')
})
