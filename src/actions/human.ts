/**
 * Extension: the agent asks for a person (docs/takeover.md). The request waits, outside the
 * desktop's queue, until a person has taken the desktop over and handed it back, or until its
 * timeout; either way it answers 200, with `human` saying which.
 */
import { Type } from '@sinclair/typebox'
import { ScreenshotFlag } from './common.ts'
import { DEFAULT_HUMAN_SECONDS, MAX_HUMAN_SECONDS, MAX_MESSAGE_CHARS } from '../control/schema.ts'

export const requestHumanSchema = () => Type.Object({
  action: Type.Literal('request_human'),
  message: Type.String({
    minLength: 1, maxLength: MAX_MESSAGE_CHARS,
    description: 'What the agent needs a person for; shown in the live view, GET /control and the webhook.',
    errorMessage: `message must be text of 1 to ${MAX_MESSAGE_CHARS} characters`,
  }),
  timeout_s: Type.Optional(Type.Integer({
    minimum: 1, maximum: MAX_HUMAN_SECONDS,
    description: `Seconds to wait for a person (default ${DEFAULT_HUMAN_SECONDS}).`,
    errorMessage: `timeout_s must be a whole number of seconds from 1 to ${MAX_HUMAN_SECONDS}`,
  })),
  screenshot: Type.Optional(ScreenshotFlag),
}, {
  additionalProperties: false,
  title: 'RequestHumanAction',
  description: 'Extension: waits until a person has taken the desktop over and handed it back (answer `human`: what they said, who, how long), or until timeout_s (outcome timed_out). The last action of its batch.',
})
