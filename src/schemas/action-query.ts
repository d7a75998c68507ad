/** Query parameters every action route accepts (SPEC §5). */
import { Type, type Static } from '@sinclair/typebox'
import { DEFAULT_QUALITY, IMAGE_FORMATS, MEDIA_TYPES } from '../screen/screenshot.ts'

/** The most a request may ask a settled screenshot to wait (its defaults are the server's flags). */
export const SETTLE_QUIET_MAX_MS = 10_000
export const SETTLE_CAP_MAX_MS = 30_000

export const ActionQuery = Type.Object({
  screenshot: Type.Optional(Type.Boolean({
    description: 'Attach a screenshot taken after the action (after the last one, for a batch); PNG unless `format` says otherwise.',
  })),
  // The upper bound is the server's --max-display-size (default 4096), checked with the query
  // (src/screen/scaling.ts clientSpace): this schema is shared by every route and built once.
  display_width_px: Type.Optional(Type.Integer({
    minimum: 1,
    description: "Width of the screen as the client's model sees it. Coordinates are scaled from this space and screenshots to it. Default: the real width. At most the server's --max-display-size (default 4096).",
  })),
  display_height_px: Type.Optional(Type.Integer({
    minimum: 1,
    description: "Height of the screen as the client's model sees it. Default: the real height. At most the server's --max-display-size (default 4096).",
  })),
  format: Type.Optional(Type.Union(IMAGE_FORMATS.map((format) => Type.Literal(format)), {
    description: 'How every screenshot of the answer is encoded: png (lossless, the default of every route), jpeg or webp (smaller; see `quality`). Adapters that name a media type in their answer name this one.',
  })),
  quality: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: 100,
    description: `Quality of a jpeg or webp screenshot, 1–100 (default ${DEFAULT_QUALITY}). Not with png, which is lossless.`,
  })),
  settle: Type.Optional(Type.Boolean({
    description: 'Before a screenshot taken after an action that may change the screen, wait until the screen has stopped changing (no change for `settle_quiet_ms`, at most `settle_max_ms`), so the screenshot shows the effect. Default: true on the adapter routes, false on /computer and /computer/batch.',
  })),
  settle_quiet_ms: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: SETTLE_QUIET_MAX_MS,
    description: "How long the screen must stay unchanged to count as settled, in ms. Default: the server's --settle-quiet-ms (300). Giving it asks for a settled screenshot on every route, unless settle=false.",
  })),
  settle_max_ms: Type.Optional(Type.Integer({
    minimum: 0,
    maximum: SETTLE_CAP_MAX_MS,
    description: "The longest a settled screenshot waits for the screen to stop changing, in ms; then it is taken anyway. Default: the server's --settle-max-ms (3000). Giving it asks for a settled screenshot on every route, unless settle=false.",
  })),
}, { additionalProperties: false, $id: 'ActionQuery', title: 'ActionQuery' })
export type ActionQuery = Static<typeof ActionQuery>

/** The media type of every image in an answer, as the adapters that name one write it. */
export const ImageMediaType = Type.Union(Object.values(MEDIA_TYPES).map((type) => Type.Literal(type)), {
  description: 'image/png unless the request asked for another `format`.',
})
