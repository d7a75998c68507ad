/**
 * The Scrapybara v1 instance API's bodies as its SDKs send and parse them (the `scrapybara`
 * npm package's serialization/, and the PyPI package's types/): field names in snake_case,
 * its status strings, and the instance types it knows. Nulls are taken where the SDKs may send
 * them for an omitted value.
 */
import { Type, type Static } from '@sinclair/typebox'
import { DESKTOP_ID } from '../schemas.ts'

const orNull = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]))

export const StartRequest = Type.Object({
  instance_type: orNull(Type.Union([Type.Literal('ubuntu'), Type.Literal('browser'), Type.Literal('windows')], { description: 'ubuntu (default) or browser: both a full desktop of the fleet; windows answers 501' })),
  timeout_hours: orNull(Type.Number({ description: 'hours until the fleet ends the instance (its TTL): 1/60 to 24; default 1' })),
  blocked_domains: orNull(Type.Array(Type.String(), { description: 'not served: only an empty list is taken (501 otherwise)' })),
  resolution: orNull(Type.Array(Type.Integer(), { minItems: 2, maxItems: 2, description: '[width, height] of the screen; default the fleet\'s --screen' })),
}, { additionalProperties: false })
export type StartRequest = Static<typeof StartRequest>

/** Scrapybara's statuses, as its SDKs' Status enum has them. */
export const InstanceStatus = Type.Union(['deploying', 'running', 'paused', 'terminated', 'error', 'warm_pool'].map((s) => Type.Literal(s)))

export const InstanceResponse = Type.Object({
  id: Type.String(),
  launch_time: Type.String({ format: 'date-time' }),
  instance_type: Type.Union([Type.Literal('ubuntu'), Type.Literal('browser')]),
  status: InstanceStatus,
  resolution: Type.Array(Type.Integer()),
})
export type InstanceResponse = Static<typeof InstanceResponse>

export const InstanceParams = Type.Object({
  instance_id: Type.String({ pattern: DESKTOP_ID, description: 'an instance id: 16 lowercase hex digits, as POST /v1/start answered it' }),
}, { additionalProperties: false })

export const ResumeQuery = Type.Object({
  // Any value is refused with a 501 (a query's values are strings; nothing is coerced).
  timeout_hours: Type.Optional(Type.String({ description: 'not served: an instance\'s TTL is fixed when it starts (501)' })),
})

/** A request that does not fit (422): the fleet's error body, and Scrapybara's (FastAPI's) `detail` its SDKs parse. */
export const ValidationBody = Type.Object({
  statusCode: Type.Literal(422),
  code: Type.String(),
  error: Type.String(),
  message: Type.String(),
  detail: Type.Array(Type.Object({ loc: Type.Array(Type.Union([Type.String(), Type.Integer()])), msg: Type.String(), type: Type.String() })),
})

export const StatusResponse = Type.Object({ status: Type.String() })
export const ScreenshotResponse = Type.Object({ base64_image: Type.String() })
export const StreamUrlResponse = Type.Object({ stream_url: Type.String() })
export const UploadResponse = Type.Object({ filename: Type.String(), path: Type.String(), media_type: Type.Optional(Type.String()) })
