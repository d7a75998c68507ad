/**
 * What the recording routes answer: an episode's summary, its steps, the list. One source for
 * the types, the response serialisers and the OpenAPI document.
 */
import { Type, type Static } from '@sinclair/typebox'
import { ErrorBody } from '../schemas/error-body.ts'

/** An episode's name: what X-Recording-Id carries and the store's folder is called. */
export const RECORDING_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'
/** `session` is the replay page's sign-in path under /recordings, so no episode may take it. */
export const RESERVED_IDS: ReadonlySet<string> = new Set(['session'])

export const RecordingIdParams = Type.Object({
  id: Type.String({ pattern: RECORDING_ID_PATTERN, description: 'The episode\'s name, as sent in X-Recording-Id.' }),
}, { additionalProperties: false })

export const RecordingImageParams = Type.Object({
  id: Type.String({ pattern: RECORDING_ID_PATTERN }),
  name: Type.String({ pattern: '^[0-9]{4}-[0-9]{1,3}(-after)?\\.(png|jpg|webp)$', description: 'A file named by a step\'s `images`.' }),
}, { additionalProperties: false })

export const RecordingState = Type.Union([Type.Literal('recording'), Type.Literal('stopped')])

export const RecordingSummary = Type.Object({
  id: Type.String(),
  state: RecordingState,
  started_at: Type.String({ format: 'date-time' }),
  ended_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  /** Why it ended: stopped (POST …/stop), idle, limit, shutdown, desktop-gone, write-failed: …, restarted. */
  stop_reason: Type.Union([Type.String(), Type.Null()]),
  steps: Type.Integer({ minimum: 0 }),
  bytes: Type.Integer({ minimum: 0, description: 'Everything the episode holds on disk: steps, images and video.' }),
  video: Type.Boolean({ description: 'Whether a video file exists (GET /recordings/{id}/video).' }),
  /** When the video's first frame was grabbed (ISO 8601); a step's `video_offset_ms` counts from it. */
  video_started_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  video_error: Type.Union([Type.String(), Type.Null()]),
}, { $id: 'RecordingSummary', additionalProperties: false })

/** One executor run of a request: the unified actions it became and what they answered. */
export const RecordedRun = Type.Object({
  actions: Type.Array(Type.Unknown(), { description: 'The unified actions, as run.' }),
  /** Each action's unified response, its image replaced by the file it was saved as (`image`). */
  results: Type.Array(Type.Unknown()),
  failed_index: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.Ref(ErrorBody), Type.Null()]),
  ms: Type.Number({ description: 'From the run\'s start (queue wait included) to its answer.' }),
}, { $id: 'RecordedRun', additionalProperties: false })

export const RecordingStep = Type.Object({
  index: Type.Integer({ minimum: 0 }),
  method: Type.String({ description: 'The HTTP method; CDP for a call of a DevTools session (/browser/cdp) that named the episode.' }),
  route: Type.String({ description: 'The route as registered, e.g. /computer/{adapter} as /computer/anthropic, or /mcp.' }),
  url: Type.String({ description: 'The path and query as received, any token parameter removed.' }),
  /** The native payload as received: JSON as parsed, a model's text as text; secret-named fields replaced by "[redacted]". */
  payload: Type.Unknown(),
  runs: Type.Array(Type.Ref(RecordedRun)),
  status: Type.Integer(),
  /** The answer as sent (JSON as parsed, else text), inline images left out; null when it was streamed (MCP) or not text. */
  response: Type.Unknown(),
  error: Type.Union([Type.Ref(ErrorBody), Type.Null()]),
  started_at: Type.String({ format: 'date-time' }),
  ms: Type.Number({ description: 'From the request\'s arrival to its answer.' }),
  /** Where the step starts in the video, ms from its first frame (null without a video). */
  video_offset_ms: Type.Union([Type.Number(), Type.Null()]),
  /** The screenshots of the step, in order: file names under GET /recordings/{id}/images/. */
  images: Type.Array(Type.String()),
}, { $id: 'RecordingStep', additionalProperties: false })

export const RecordingDetail = Type.Object({
  ...RecordingSummary.properties,
  steps: Type.Array(Type.Ref(RecordingStep)),
}, { $id: 'RecordingDetail', additionalProperties: false })

export const RecordingList = Type.Object({
  recordings: Type.Array(Type.Ref(RecordingSummary)),
  /** Bytes the whole store holds, and its limit (--record-max-mb). */
  bytes: Type.Integer({ minimum: 0 }),
  max_bytes: Type.Integer({ minimum: 0 }),
}, { $id: 'RecordingList', additionalProperties: false })

export const RECORDING_SCHEMAS = [RecordingSummary, RecordedRun, RecordingStep, RecordingDetail, RecordingList]

export type RecordingSummary = Static<typeof RecordingSummary>
export type RecordedRun = Static<typeof RecordedRun>
export type RecordingStep = Static<typeof RecordingStep>
export type RecordingDetail = Static<typeof RecordingDetail>
