/** The seed's two keyboard actions, plus our `press_type` extension. */
import { Type } from '@sinclair/typebox'
import { limitMessages, type Limits } from './limits.ts'
import { HoldKeys, ScreenshotFlag, StringEnum } from './common.ts'

export const pressKeySchema = (limits: Limits) => Type.Object({
  action: Type.Literal('press_key'),
  keys: Type.Array(Type.String({ minLength: 1 }), {
    minItems: 1,
    maxItems: limits.maxComboKeys,
    description: 'Keys pressed together, in order, released in reverse order. Names are case-insensitive; "ctrl+c" style combos are split.',
    errorMessage: {
      minItems: 'keys list cannot be empty',
      maxItems: limitMessages(limits).keys('keys'),
      _: 'keys must be a list of key names',
    },
  }),
  duration: Type.Optional(Type.Number({
    exclusiveMinimum: 0,
    maximum: limits.maxKeyHoldSeconds,
    description: 'Seconds to hold the keys; none is a quick press.',
    errorMessage: {
      exclusiveMinimum: 'duration must be positive',
      maximum: limitMessages(limits).keyHold,
      type: 'duration must be a number of seconds',
    },
  })),
  press_type: Type.Optional(StringEnum(['press', 'down', 'up'], {
    default: 'press',
    description: "Extension: 'down' holds the keys until an 'up' (or the idle timeout); 'up' releases them.",
    errorMessage: "press_type must be one of 'press', 'down', 'up'",
  })),
  screenshot: Type.Optional(ScreenshotFlag),
}, { additionalProperties: false, title: 'PressKeyAction', description: 'Presses a key or a combo.' })

export const typeTextSchema = (limits: Limits) => Type.Object({
  action: Type.Literal('type_text'),
  text: Type.String({
    minLength: 1,
    maxLength: limits.maxTextLength,
    description: 'Any Unicode text, typed exactly as given.',
    errorMessage: {
      minLength: 'text cannot be empty',
      maxLength: limitMessages(limits).text,
      type: 'text must be a string',
    },
  }),
  hold_keys: Type.Optional(HoldKeys(limits)),
  screenshot: Type.Optional(ScreenshotFlag),
}, { additionalProperties: false, title: 'TypeTextAction', description: 'Types text.' })
