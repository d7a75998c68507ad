/**
 * Screen grabs through MIT-SHM on a pure-JavaScript connection: the X server writes the pixels
 * into a shared segment (a tmpfs file whose descriptor node-x11 passes with SCM_RIGHTS, SHM
 * 1.2 AttachFd) and answers with a few bytes; the pixels are then read back with one pread,
 * instead of 4 MB crossing the socket and being reassembled in JavaScript. Nothing is mapped
 * into this process, so a dying X server cannot take it down with a dangling mapping.
 */
import type { XClient } from 'x11'
import type { RawImage, Rect, Size } from '../../src/driver.ts'
import { bgrxToRgbx } from '../../src/pixels.ts'

const Z_PIXMAP = 2
const ALL_PLANES = 0xffffffff

/** The part of node-x11's MIT-SHM extension (lib/ext/shm.js) used here. */
interface ShmSegment {
  buffer: Buffer
  getImage (drawable: number, x: number, y: number, width: number, height: number, planeMask: number, format: number, offset: number,
    callback: (error: Error | null) => void): void
}
interface ShmExtension {
  usable (callback: (error: Error | null, usable: boolean) => void): void
  createSegment (size: number, callback: (error: Error | null, segment: ShmSegment) => void): void
}
type ShmClient = XClient & { require (extension: 'shm', callback: (error: Error | null, ext: ShmExtension) => void): void }

export interface ShmGrabber {
  /** A rectangle of the root window (inside the screen) as tightly packed RGBX rows, copied out of the segment. */
  grab (rect: Rect): Promise<RawImage>
}

/**
 * A grabber with a segment of one full screen, or a rejection when the X server offers no
 * MIT-SHM or takes no segment from us (a remote display, a container without a shared /dev/shm).
 */
export function openShmGrabber (client: XClient, root: number, screen: Size): Promise<ShmGrabber> {
  const x = client as ShmClient
  return new Promise((resolve, reject) => {
    x.require('shm', (error, ext) => {
      if (error || !ext) { reject(error ?? new Error('no MIT-SHM')); return }
      ext.usable((probeError, usable) => {
        if (probeError || !usable) { reject(probeError ?? new Error('MIT-SHM takes no segment from this connection')); return }
        ext.createSegment(screen.width * screen.height * 4, (createError, segment) => {
          if (createError) reject(createError)
          else resolve(grabber(segment, root))
        })
      })
    })
  })
}

function grabber (segment: ShmSegment, root: number): ShmGrabber {
  // One segment: grabs take turns, each copying its pixels out before the next overwrites them.
  let turn: Promise<unknown> = Promise.resolve()
  // The memory of a grab its consumer released (RawImage.release), for the next copy.
  let spare: Buffer | undefined
  const once = ({ x, y, width, height }: Rect) => new Promise<RawImage>((resolve, reject) => {
    segment.getImage(root, x, y, width, height, ALL_PLANES, Z_PIXMAP, 0, (error) => {
      if (error) { reject(error); return }
      // The copy out of the segment is the one that turns X's BGRX into RGBX: the encoder
      // then takes the pixels as they are, with no second 4 MB copy.
      const data = bgrxToRgbx(segment.buffer, width * height * 4, spare)
      spare = undefined
      let released = false
      const release = () => {
        if (released) return
        released = true
        // data is a view from byte 1 of the buffer bgrxToRgbx filled.
        spare = Buffer.from(data.buffer, data.byteOffset - 1, data.length + 1)
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
