/**
 * Where an object is drawn on the screen, which is not always where it says it is.
 *
 * A decorated top-level window has an outer corner (decorations included) and the corner of
 * its client area, where window coordinates start. LibreOffice's GTK face gives the objects
 * it draws itself (cells, toolbars, the document) screen positions off by the title bar: their
 * window coordinates plus the outer corner, not the client's. Such objects are found by that very
 * sum and placed at their window coordinates plus the client's corner, where they are drawn.
 */
import type { AtspiRef } from '../../src/accessibility/source.ts'
import type { AtspiClient } from './atspi-client.ts'

/** A decorated top-level window's outer corner and its client area's corner. */
export interface Frame {
  outer: [number, number]
  client: [number, number]
}

export async function frameOf (client: AtspiClient, ref: AtspiRef): Promise<Frame | null> {
  try {
    const [screen, window] = await Promise.all([client.extents(ref), client.windowExtents(ref)])
    const frame: Frame = { outer: [screen[0], screen[1]], client: [screen[0] - window[0], screen[1] - window[1]] }
    return frame.outer[0] === frame.client[0] && frame.outer[1] === frame.client[1] ? null : frame
  } catch {
    return null
  }
}

type Extents = [number, number, number, number]

/** Where the object is drawn, from where it says it is on the screen (`reported`). */
export async function placed (client: AtspiClient, ref: AtspiRef, frame: Frame | null, reported: Promise<Extents | null>): Promise<Extents | null> {
  if (!frame) return reported
  const [screen, window] = await Promise.all([reported, client.windowExtents(ref).catch(() => null)])
  if (!screen || !window) return screen
  const offBy = screen[0] - window[0] === frame.outer[0] && screen[1] - window[1] === frame.outer[1]
  return offBy ? [window[0] + frame.client[0], window[1] + frame.client[1], window[2], window[3]] : screen
}

/** The top-level window an object is in (the child of its application), or null. */
export async function topLevelOf (client: AtspiClient, ref: AtspiRef): Promise<AtspiRef | null> {
  let current = ref
  for (let depth = 0; depth < 64; depth++) {
    const parent = await client.parent(current)
    if (!parent) return null
    if (await client.roleName(parent) === 'application') return current
    current = parent
  }
  return null
}
