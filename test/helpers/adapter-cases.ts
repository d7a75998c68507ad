/**
 * What every adapter's table-driven test needs: its recorded payloads (test/fixtures/<name>/),
 * PNG sizes in place of screenshots so whole bodies compare, the 400 error body, and the check
 * that a refusal reads the same on the translate and the execute route with nothing run.
 */
import { readFileSync } from 'node:fs'
import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import type { FakeDriver } from '../../drivers/fake/fake-driver.ts'
import type { Adapter } from '../../src/pipeline/adapter.ts'
import { build, post } from './build.ts'
import { badRequest } from './error-body.ts'

/** A recorded fixture of an adapter: test/fixtures/<adapter>/<file>, parsed. */
export const fixture = <T>(adapter: string, file: string): T =>
  JSON.parse(readFileSync(new URL(`../fixtures/${adapter}/${file}`, import.meta.url), 'utf8')) as T

/**
 * One recorded payload and what it becomes. Every adapter keeps its cases in
 * test/fixtures/<adapter>/translate.json as `{ about, sources?, cases }`: `source` says where the
 * payload comes from (a key of `sources`, or the words themselves); an adapter may add fields
 * of its own (`meta`, `query`, `steps`, …) through `Extra`.
 */
export type AdapterCase<Extra = {}> = {
  name: string
  source: string
  payload: unknown
  /** The unified actions /translate answers with; absent for a payload only other tests use. */
  actions?: unknown[]
  /** Why the expected actions are what they are (the arithmetic of a scaled scroll, say). */
  note?: string
} & Extra

export interface AdapterCases<Extra = {}> {
  about: string
  sources?: Record<string, string>
  cases: Array<AdapterCase<Extra>>
}

/** An adapter's recorded cases (test/fixtures/<adapter>/translate.json, or another file of that shape). */
export const adapterCases = <Extra = {}>(adapter: string, file = 'translate.json') => fixture<AdapterCases<Extra>>(adapter, file).cases

/** An adapter's recorded cases looked up by name; a name not in the fixtures throws. */
export function caseByName<Extra = {}> (adapter: string, file = 'translate.json'): (name: string) => AdapterCase<Extra> {
  const byName = new Map(adapterCases<Extra>(adapter, file).map((c) => [c.name, c]))
  return (name) => {
    const found = byName.get(name)
    if (!found) throw new Error(`no reply ${name} in the fixtures`)
    return found
  }
}

/** The same reply sent as text/plain to a translate route becomes the same actions. */
export async function sameAsText (t: Test, app: FastifyInstance, url: string, text: string, actions: unknown, name: string) {
  const raw = await app.inject({ method: 'POST', url, payload: text, headers: { 'content-type': 'text/plain; charset=utf-8' } })
  t.strictSame(raw.json().actions, actions, `${name} as text/plain`)
}

/** The fake driver's calls for key combos pressed one after the other: 'ctrl+a' holds ctrl, taps a, releases ctrl. */
export const pressed = (...combos: string[]) => combos.flatMap((combo) => {
  const keys = combo.split('+')
  return [...keys.map((key) => ({ call: 'keyDown', key })), ...[...keys].reverse().map((key) => ({ call: 'keyUp', key }))]
})

/** The fake driver's calls for a left click at a screen pixel. */
export const leftClickAt = (x: number, y: number) => [{ call: 'moveMouse', x, y }, { call: 'buttonDown', button: 'left' }, { call: 'buttonUp', button: 'left' }]

/**
 * Each recorded case through the adapter's translate route answers its whole body (the default
 * 1280x800 display, a screenshot asked for, `meta` of the case), and nothing runs.
 */
export async function translatesRecorded<C extends AdapterCase> (t: Test, adapter: Adapter<any, any, any>, version: string, cases: C[], meta: (c: C) => unknown) {
  const { app, driver } = await build(t, { adapters: [adapter] })
  for (const c of cases) {
    const { status, body } = await post(app, `/computer/${adapter.name}/translate`, c.payload)
    t.equal(status, 200, c.name)
    t.strictSame(body, {
      adapter: adapter.name,
      version,
      actions: c.actions,
      screenshot: true,
      display_width_px: 1280,
      display_height_px: 800,
      meta: meta(c),
    }, `${c.name} (${c.source})`)
  }
  t.strictSame(driver.calls, [], 'translating runs nothing')
}

/**
 * Sends a payload to an execute route of the adapter over the fake 1280x800 screen, which must
 * answer 200: the driver's calls, and the body with its screenshot as its size.
 */
export async function executedOnFake (t: Test, adapter: Adapter<any, any, any>, url: string, payload: unknown) {
  const { app, driver } = await build(t, { adapters: [adapter] })
  const { status, body } = await post(app, url, payload)
  t.equal(status, 200)
  return { calls: driver.calls, body: { ...body, screenshot: imageSize(body.screenshot) } }
}

/** Width and height from a PNG's IHDR chunk, after checking the signature. */
export function pngSize (base64: string) {
  const png = Buffer.from(base64, 'base64')
  if (png.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error('not a PNG')
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) }
}

/** A screenshot (base64 PNG or null) as its size, so whole bodies can be compared. */
export const imageSize = (screenshot: string | null) => screenshot === null ? null : pngSize(screenshot)

export { badRequest }

export interface Refusal {
  name: string
  payload: unknown
  /** Appended to both routes' paths (a query string). */
  url?: string
  body: ReturnType<typeof badRequest> & { failed_index?: number }
}

/** Each refusal answers 400 with its whole body on the adapter's translate and execute route, and nothing runs. */
export async function refusedOnBothRoutes (t: Test, adapter: Adapter<any, any, any>, refusals: Refusal[]) {
  const { app, driver } = await build(t, { adapters: [adapter] })
  for (const r of refusals) {
    for (const url of [`/computer/${adapter.name}/translate`, `/computer/${adapter.name}`]) {
      const { status, body } = await post(app, url + (r.url ?? ''), r.payload)
      t.equal(status, 400, `${r.name} (${url})`)
      t.strictSame(body, r.body, `${r.name} (${url})`)
    }
  }
  t.strictSame(driver.calls, [])
}

/** A refusal recorded in test/fixtures/<adapter>/errors.json: the status and whole body it answers. */
export interface ErrorCase {
  source: string
  query?: string
  body: unknown
  status: number
  response: unknown
}

/**
 * Each refusal of test/fixtures/<adapter>/errors.json answers its status and whole body on the
 * execute and the translate route, and nothing runs. `search` makes the query string of a case.
 */
export async function recordedRefusals (t: Test, app: FastifyInstance, driver: FakeDriver, adapter: string, search: (c: ErrorCase) => string) {
  for (const c of fixture<ErrorCase[]>(adapter, 'errors.json')) {
    const url = `/computer/${adapter}${search(c)}`
    for (const route of [url, url.replace(`/computer/${adapter}`, `/computer/${adapter}/translate`)]) {
      const { status, body } = await post(app, route, c.body)
      t.equal(status, c.status, `${c.source} (${route})`)
      t.strictSame(body, c.response, `${c.source}: ${JSON.stringify(c.body)}`)
    }
  }
  t.strictSame(driver.calls, [], 'nothing reached the driver')
}
