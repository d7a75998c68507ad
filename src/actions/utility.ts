/** The seed's utility actions, plus our `region` extension of take_screenshot. */
import { Type } from '@sinclair/typebox'
import type { Region } from '../screen/geometry.ts'
import { limitMessages, type Limits } from './limits.ts'
import { ScreenshotFlag } from './common.ts'

export const waitSchema = (limits: Limits) => Type.Object({
  action: Type.Literal('wait'),
  duration: Type.Number({
    exclusiveMinimum: 0,
    maximum: limits.maxWaitSeconds,
    description: 'Seconds to wait.',
    errorMessage: {
      exclusiveMinimum: 'duration must be positive',
      maximum: limitMessages(limits).wait,
      type: 'duration must be a number of seconds',
    },
  }),
  screenshot: Type.Optional(ScreenshotFlag),
}, { additionalProperties: false, title: 'WaitAction', description: 'Waits.' })

export const REGION_MESSAGE = 'region must be a list of 4 integers [x0, y0, x1, y1] with x0 < x1 and y0 < y1'

export const takeScreenshotSchema = () => Type.Object({
  action: Type.Literal('take_screenshot'),
  region: Type.Optional(Type.Unsafe<Region>(Type.Array(Type.Integer(), {
    minItems: 4,
    maxItems: 4,
    description: 'Extension: a crop [x0, y0, x1, y1] (x1, y1 exclusive), returned at its own size in the request\'s coordinate space.',
    errorMessage: REGION_MESSAGE,
  }))),
  screenshot: Type.Optional(ScreenshotFlag),
}, { additionalProperties: false, title: 'TakeScreenshotAction', description: 'Returns a PNG of the screen.' })

export const getCursorPositionSchema = () => Type.Object({
  action: Type.Literal('get_cursor_position'),
  screenshot: Type.Optional(ScreenshotFlag),
}, { additionalProperties: false, title: 'GetCursorPositionAction', description: 'Reports where the pointer is.' })
