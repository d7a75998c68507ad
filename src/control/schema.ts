/** The control lease's bodies and answers (docs/takeover.md): what /control takes and tells. */
import { Type, type Static } from '@sinclair/typebox'

/** A lease nobody renews ends after this long. */
export const DEFAULT_LEASE_SECONDS = 600
/** The longest lease one takeover may ask for (a person renews by taking over again). */
export const MAX_LEASE_SECONDS = 4 * 3600
/** request_human waits this long when it names no timeout. */
export const DEFAULT_HUMAN_SECONDS = 600
/** The longest request_human may wait for a person. */
export const MAX_HUMAN_SECONDS = 3600
/** The longest name a holder may give, and the longest message a person or an agent may leave. */
export const MAX_HOLDER_CHARS = 64
export const MAX_MESSAGE_CHARS = 2000

export const TakeoverBody = Type.Object({
  holder: Type.Optional(Type.String({
    minLength: 1, maxLength: MAX_HOLDER_CHARS, pattern: '^[^\\u0000-\\u001f\\u007f]+$',
    description: 'Who takes the desktop over, as the agent\'s 423 will name them (default "operator"). The same holder taking over again renews the lease.',
    errorMessage: `holder must be a name of 1 to ${MAX_HOLDER_CHARS} printable characters`,
  })),
  timeout_s: Type.Optional(Type.Integer({
    minimum: 1, maximum: MAX_LEASE_SECONDS,
    description: `Seconds until the lease ends by itself unless renewed (default ${DEFAULT_LEASE_SECONDS}).`,
    errorMessage: `timeout_s must be a whole number of seconds from 1 to ${MAX_LEASE_SECONDS}`,
  })),
}, { additionalProperties: false, title: 'TakeoverRequest' })
export type TakeoverBody = Static<typeof TakeoverBody>

export const ReleaseBody = Type.Object({
  message: Type.Optional(Type.String({
    maxLength: MAX_MESSAGE_CHARS,
    description: 'What the person tells the agent: the answer of a waiting request_human.',
    errorMessage: `message must be text of at most ${MAX_MESSAGE_CHARS} characters`,
  })),
}, { additionalProperties: false, title: 'ReleaseRequest' })
export type ReleaseBody = Static<typeof ReleaseBody>

export const LeaseSchema = Type.Object({
  holder: Type.String({ description: 'Who holds the desktop.' }),
  since: Type.String({ description: 'When they took it over (ISO 8601).' }),
  expires_at: Type.String({ description: 'When the lease ends unless renewed (ISO 8601).' }),
  via: Type.Union([Type.Literal('api'), Type.Literal('live')], { description: 'api: POST /control/takeover; live: the live view\'s button (released when its tab closes).' }),
}, { $id: 'ControlLease', title: 'ControlLease' })
export type Lease = Static<typeof LeaseSchema>

export const HumanRequestSchema = Type.Object({
  message: Type.String({ description: 'What the agent asks of a person.' }),
  since: Type.String({ description: 'When it asked (ISO 8601).' }),
  until: Type.String({ description: 'When it stops waiting (ISO 8601).' }),
}, { $id: 'HumanRequest', title: 'HumanRequest' })
export type HumanRequest = Static<typeof HumanRequestSchema>

export const ControlState = Type.Object({
  lease: Type.Union([Type.Ref(LeaseSchema), Type.Null()], { description: 'The lease, or null while the agent has the desktop.' }),
  requests: Type.Array(Type.Ref(HumanRequestSchema), { description: 'request_human calls waiting for a person, oldest first.' }),
}, { $id: 'ControlState', title: 'ControlState' })
export type ControlState = Static<typeof ControlState>

export const ReleasedSchema = Type.Object({
  released: Type.Ref(LeaseSchema),
  held_ms: Type.Integer({ description: 'How long the person held the desktop.' }),
  answered: Type.Integer({ description: 'How many waiting request_human calls this release answered.' }),
}, { $id: 'ControlReleased', title: 'ControlReleased' })
export type Released = Static<typeof ReleasedSchema>

/** request_human's answer, in its action response's `human`. */
export const HumanAnswerSchema = Type.Object({
  outcome: Type.Union([Type.Literal('released'), Type.Literal('timed_out')], { description: 'released: a person took over and handed back; timed_out: nobody did in time.' }),
  message: Type.Union([Type.String(), Type.Null()], { description: 'What the person said on release (null when they said nothing, or nobody came).' }),
  holder: Type.Union([Type.String(), Type.Null()], { description: 'Who took over.' }),
  held_ms: Type.Union([Type.Integer(), Type.Null()], { description: 'How long the person held the desktop.' }),
  waited_ms: Type.Integer({ description: 'How long the action waited.' }),
}, { $id: 'HumanAnswer', title: 'HumanAnswer' })
export type HumanAnswer = Static<typeof HumanAnswerSchema>

/** The schemas the routes refer to by $id (added to the app's shared schemas). */
export const CONTROL_SCHEMAS = [LeaseSchema, HumanRequestSchema, ControlState, ReleasedSchema]
