/**
 * Screen grabs through MIT-SHM on a pure-JavaScript connection: the X server writes the pixels
 * into a shared segment (a tmpfs file whose descriptor node-x11 passes with SCM_RIGHTS, SHM
 * 1.2 AttachFd) and answers with a few bytes; the pixels are then read back with one pread,
 * instead of 4 MB crossing the socket and being reassembled in JavaScript. Nothing is mapped
 * into this process, so a dying X server cannot take it down with a dangling mapping.
 *
 * The segment comes from our own provider (node-x11's seam for one, `createClient({ shm })`):
 * node-x11's built-in one reads every grab into a buffer of its own, which was then copied
 * again; ours leaves the pixels in the segment, and the grab reads them straight into the
 * buffer it returns.
 */
import { closeSync, ftruncateSync, openSync, readSync, unlinkSync } from 'node:fs'
import type { XClient } from 'x11'
import type { RawImage, Rect, Size } from '../../src/driver/driver.ts'
import { reorderToRgbx } from '../../src/screen/pixels.ts'

const Z_PIXMAP = 2
const ALL_PLANES = 0xffffffff
const SHM_DIR = '/dev/shm'

/** The part of node-x11's MIT-SHM extension (lib/ext/shm.js) used here. */
interface ShmSegment {
  getImage (drawable: number, x: number, y: number, width: number, height: number, planeMask: number, format: number, offset: number,
    callback: (error: Error | null) => void): void
}
interface ShmExtension {
  usable (callback: (error: Error | null, usable: boolean) => void): void
  createSegment (size: number, callback: (error: Error | null, segment: ShmSegment) => void): void
}
type ShmClient = XClient & { require (extension: 'shm', callback: (error: Error | null, ext: ShmExtension) => void): void }

/** A segment as node-x11's provider contract (lib/shm-provider.js) has it. */
interface Segment { size: number, fd: number | null, buffer: Buffer }

/**
 * A provider (flavor 'fd') whose segments keep their pixels: nothing is read back into
 * `buffer` (empty: nothing here renders into a segment), the grab reads the descriptor itself.
 * Pass it to createClient({ shm }) and to openShmGrabber.
 */
export class ReadBackProvider {
  readonly flavor = 'fd'
  readonly zeroCopy = false
  #segment?: Segment
  #counter = 0

  /** The last segment made, for the grab to read. */
  get segment (): Segment | undefined { return this.#segment }

  create (size: number): Segment {
    const path = `${SHM_DIR}/computer-gateway-shm-${process.pid}-${this.#counter++}`
    const fd = openSync(path, 'w+', 0o600)
    try {
      ftruncateSync(fd, size)
    } finally {
      // Anonymous from here on: it lives as long as a descriptor (ours, then X's) does.
      unlinkSync(path)
    }
    this.#segment = { size, fd, buffer: Buffer.alloc(0) }
    return this.#segment
  }

  commit (): void {}
  sync (): void {}

  destroy (segment: Segment): void {
    if (segment.fd === null) return
    try { closeSync(segment.fd) } catch { /* already closed */ }
    segment.fd = null
  }
}

export interface ShmGrabber {
  /** A rectangle of the root window (inside the screen) as tightly packed RGBX rows. */
  grab (rect: Rect): Promise<RawImage>
}

/**
 * A grabber with a segment of one full screen, or a rejection when the X server offers no
 * MIT-SHM or takes no segment from us (a remote display, a container without a shared /dev/shm).
 * `client` must have been created with `provider` as its `shm`.
 */
export function openShmGrabber (client: XClient, root: number, screen: Size, provider: ReadBackProvider): Promise<ShmGrabber> {
  const x = client as ShmClient
  return new Promise((resolve, reject) => {
    x.require('shm', (error, ext) => {
      if (error || !ext) { reject(error ?? new Error('no MIT-SHM')); return }
      ext.usable((probeError, usable) => {
        if (probeError || !usable) { reject(probeError ?? new Error('MIT-SHM takes no segment from this connection')); return }
        ext.createSegment(screen.width * screen.height * 4, (createError, segment) => {
          const made = provider.segment
          if (createError) reject(createError)
          else if (!made) reject(new Error('the MIT-SHM segment did not come from our provider'))
          else resolve(grabber(segment, made, root))
        })
      })
    })
  })
}

function grabber (segment: ShmSegment, made: Segment, root: number): ShmGrabber {
  // One segment: grabs take turns, each reading its pixels out before the next overwrites them.
  let turn: Promise<unknown> = Promise.resolve()
  // The memory of a grab its consumer released (RawImage.release), for the next one.
  let spare: Buffer | undefined
  const once = ({ x, y, width, height }: Rect) => new Promise<RawImage>((resolve, reject) => {
    segment.getImage(root, x, y, width, height, ALL_PLANES, Z_PIXMAP, 0, (error) => {
      if (error) { reject(error); return }
      const bytes = width * height * 4
      // One byte more, for reorderToRgbx: the encoder then takes the pixels as they are.
      const into = spare?.length === bytes + 1 ? spare : Buffer.allocUnsafe(bytes + 1)
      // A region of another size leaves the full screen's memory for the next full grab.
      if (into === spare) spare = undefined
      try {
        if (made.fd === null || readSync(made.fd, into, 0, bytes, 0) !== bytes) throw new Error('the MIT-SHM segment is closed or short')
      } catch (readError) {
        reject(readError as Error)
        return
      }
      const data = reorderToRgbx(into, bytes)
      let released = false
      const release = () => {
        if (released) return
        released = true
        spare = into
      }
      resolve({ width, height, order: 'rgba', data, release })
    })
  })
  return {
    grab (rect) {
      const result = turn.then(() => once(rect))
      turn = result.catch(() => {})
      return result
    },
  }
}
