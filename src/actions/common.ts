/**
 * Building blocks shared by the action schemas. The `errorMessage` options are the seed's
 * validator messages word for word (ajv-errors turns them into the 400's message), so a
 * client written against the seed spec reads the errors it already knows.
 */
import { Type, type SchemaOptions } from '@sinclair/typebox'
import type { XY } from '../screen/geometry.ts'
import { limitMessages, type Limits } from './limits.ts'

export const COORDINATES_MESSAGE = 'coordinates must be a list of exactly 2 integers [x, y]'
export const PATH_LENGTH_MESSAGE = 'path must contain at least 2 points for a drag'
export const PATH_POINT_MESSAGE = 'each point in path must be a list of 2 integers [x, y]'

/**
 * [x, y] in the request's coordinate space (see SPEC §5). The schema stays an array of two
 * (a tuple would change the seed's error messages and the published document); its static
 * type is the pair it admits.
 */
export const Coordinates = (
  description = 'A point [x, y] in the request\'s coordinate space.',
  errorMessage = COORDINATES_MESSAGE,
) => Type.Unsafe<XY>(Type.Array(Type.Integer(), { minItems: 2, maxItems: 2, description, errorMessage }))

export const HoldKeys = (limits: Limits) =>
  Type.Array(Type.String({ minLength: 1 }), {
    maxItems: limits.maxComboKeys,
    description: 'Keys held down during the action and released after it, also when it fails.',
    errorMessage: {
      maxItems: limitMessages(limits).keys('hold_keys'),
      _: 'hold_keys must be a list of key names',
    },
  })

export const ScreenshotFlag = Type.Boolean({
  description: 'Attach a screenshot taken after the action (same as the query screenshot=true).',
  errorMessage: 'screenshot must be true or false',
})

/**
 * A string enum as a plain JSON-schema `enum`, the TypeBox idiom for enums that OpenAPI
 * generators turn into real enums (a union of literals becomes an anyOf of consts).
 */
export const StringEnum = <T extends string[]>(values: [...T], options: SchemaOptions = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: values, ...options })

export const MOUSE_BUTTONS = ['left', 'right', 'middle', 'back', 'forward'] as const

export const MouseButton = StringEnum([...MOUSE_BUTTONS], {
  errorMessage: "button must be one of 'left', 'right', 'middle', 'back', 'forward'",
})
