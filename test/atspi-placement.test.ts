/**
 * Where an object is drawn, from what AT-SPI answers in screen and window coordinates: the
 * correction applies to the objects LibreOffice places by its frame's outer corner, and only
 * to them (GTK's own widgets, popups, undecorated windows keep what they report).
 */
import t from 'tap'
import { frameOf, placed, topLevelOf } from '../drivers/atspi/placement.ts'
import type { AtspiClient } from '../drivers/atspi/atspi-client.ts'
import type { AtspiRef } from '../src/accessibility/source.ts'

type Box = [number, number, number, number]
const ref = (path: string): AtspiRef => ({ bus: ':1.5', path })

/** A client answering GetExtents from a table: path → [screen, window] (an Error: the call fails). */
function client (extents: Record<string, [Box | Error, Box | Error]>, parents: Record<string, string> = {}, roles: Record<string, string> = {}): AtspiClient {
  const answer = (box: Box | Error | undefined) => box instanceof Error || box === undefined ? Promise.reject(box ?? new Error('no such object')) : Promise.resolve(box)
  return {
    extents: (r: AtspiRef) => answer(extents[r.path]?.[0]),
    windowExtents: (r: AtspiRef) => answer(extents[r.path]?.[1]),
    parent: async (r: AtspiRef) => parents[r.path] ? ref(parents[r.path]!) : null,
    roleName: async (r: AtspiRef) => roles[r.path] ?? 'panel',
  } as unknown as AtspiClient
}

// A window decorated by the window manager: outer corner (0, 31), client area from (0, 55).
const calc = { '/frame': [[0, 31, 1280, 769], [0, -24, 1280, 769]] as [Box, Box] }

t.test('a frame: its outer corner and its client area\'s, or null when they are one', async (t) => {
  t.strictSame(await frameOf(client(calc), ref('/frame')), { outer: [0, 31], client: [0, 55] })
  t.equal(await frameOf(client({ '/frame': [[0, 0, 800, 600], [0, 0, 800, 600]] }), ref('/frame')), null, 'undecorated')
  t.equal(await frameOf(client({ '/frame': [[0, 31, 800, 600], new Error('no Component')] }), ref('/frame')), null, 'no window coordinates')
})

t.test('placed: each object as reported, unless it is placed by the outer corner', async (t) => {
  const frame = { outer: [0, 31] as [number, number], client: [0, 55] as [number, number] }
  const cases: Array<{ name: string, extents: [Box | Error, Box | Error], frame: typeof frame | null, expected: Box | null }> = [
    { name: 'LibreOffice\'s cell: window + the client\'s corner', extents: [[41, 193, 54, 17], [41, 162, 54, 17]], frame, expected: [41, 217, 54, 17] },
    { name: 'a GTK widget, consistent', extents: [[0, 55, 39, 25], [0, 0, 39, 25]], frame, expected: [0, 55, 39, 25] },
    { name: 'a popup menu, relative to its own window', extents: [[300, 400, 120, 20], [0, 20, 120, 20]], frame, expected: [300, 400, 120, 20] },
    { name: 'no frame: as reported', extents: [[41, 193, 54, 17], [41, 162, 54, 17]], frame: null, expected: [41, 193, 54, 17] },
    { name: 'window coordinates fail: as reported', extents: [[41, 193, 54, 17], new Error('gone')], frame, expected: [41, 193, 54, 17] },
    { name: 'screen coordinates fail: none', extents: [new Error('gone'), [41, 162, 54, 17]], frame, expected: null },
  ]
  for (const c of cases) {
    const fake = client({ '/node': c.extents })
    t.strictSame(await placed(fake, ref('/node'), c.frame, fake.extents(ref('/node')).catch(() => null)), c.expected, c.name)
  }
})

t.test('topLevelOf: the ancestor whose parent is the application', async (t) => {
  const fake = client({}, { '/cell': '/table', '/table': '/frame', '/frame': '/app' }, { '/app': 'application' })
  t.strictSame(await topLevelOf(fake, ref('/cell')), ref('/frame'))
  t.equal(await topLevelOf(client({}, { '/orphan': '' }), ref('/orphan')), null, 'no parent: none')
})
