/** A request's screenshots: taken once the screen has settled, encoded at the client's size. */
import type { Logger } from 'pino'
import type { Driver, SettleOptions } from '../driver/driver.ts'
import type { Rect, Size } from '../screen/geometry.ts'
import { DEFAULT_ENCODING, encodeImage, type ImageEncoding } from '../screen/screenshot.ts'
import type { DeferredImages } from '../screen/deferred-images.ts'
import { settleByPixels } from '../screen/settle.ts'
import type { Plan } from './plan.ts'

/** Plans that change nothing on the screen: a screenshot after only these is taken at once. */
export const LOOKS_ONLY = new Set<Plan['kind']>(['take_screenshot', 'get_cursor_position', 'list_windows', 'get_accessibility_tree', 'wait', 'get_clipboard', 'set_clipboard'])

/** The screen (or `rect` of it) encoded at `size`, base64, or a token for it among `deferred`. */
export async function screenshot (driver: Driver, size: Size, rect: Rect | undefined, encoding: ImageEncoding = DEFAULT_ENCODING,
  deferred?: DeferredImages): Promise<string> {
  const raw = await driver.screenshot(rect)
  try {
    const bytes = await encodeImage(raw, size, encoding)
    return deferred ? deferred.add(bytes) : bytes.toString('base64')
  } finally {
    // The encoder has read the pixels: the driver may grab into the same memory next time.
    raw.release?.()
  }
}

/** Waits for the screen to stop changing, by the driver's own signal or by comparing grabs. */
export async function settle (driver: Driver, options: SettleOptions, log: Logger): Promise<void> {
  const settled = driver.settle ? await driver.settle(options) : await settleByPixels(driver, options)
  log.debug({ ...settled, waitedMs: Math.round(settled.waitedMs * 100) / 100 }, 'screen settled')
}
