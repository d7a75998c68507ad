/**
 * What the common query says about screenshots — encoding and settling — as run options, for
 * the unified routes and the adapter pipeline alike. Refuses combinations the schema cannot.
 */
import { InvalidQuery } from '../errors/errors.ts'
import type { SettleRequest } from '../executor/executor.ts'
import type { ActionQuery } from '../schemas/action-query.ts'
import { MEDIA_TYPES, type ImageEncoding, type ImageMediaType } from '../screen/screenshot.ts'

export interface ScreenshotOptions {
  image: ImageEncoding
  settle?: SettleRequest
}

/** `settleByDefault`: the route's default when the query has no `settle` (adapters: on). */
export function screenshotOptions (query: ActionQuery, settleByDefault: boolean): ScreenshotOptions {
  const format = query.format ?? 'png'
  if (query.quality !== undefined && format === 'png') {
    throw new InvalidQuery('quality applies to format=jpeg or format=webp; png is lossless: drop quality, or ask for jpeg or webp')
  }
  const { settle_quiet_ms: quietMs, settle_max_ms: maxMs } = query
  if (quietMs !== undefined && maxMs !== undefined && maxMs < quietMs) {
    throw new InvalidQuery(`settle_max_ms (${maxMs}) is below settle_quiet_ms (${quietMs}): the screen could never count as settled; raise settle_max_ms or lower settle_quiet_ms`)
  }
  const asked = query.settle ?? (settleByDefault || quietMs !== undefined || maxMs !== undefined)
  return {
    image: { format, ...(query.quality !== undefined && { quality: query.quality }) },
    ...(asked && { settle: { ...(quietMs !== undefined && { quietMs }), ...(maxMs !== undefined && { maxMs }) } }),
  }
}

export const mediaTypeOf = (image: ImageEncoding | undefined): ImageMediaType => MEDIA_TYPES[image?.format ?? 'png']
