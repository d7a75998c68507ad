/** Query parameters every action route accepts (SPEC §5). */
import { Type, type Static } from '@sinclair/typebox'

export const ActionQuery = Type.Object({
  screenshot: Type.Optional(Type.Boolean({
    description: 'Attach a PNG screenshot taken after the action (after the last one, for a batch).',
  })),
  // The upper bound is the server's --max-display-size (default 4096), checked with the query
  // (src/scaling.ts clientSpace): this schema is shared by every route and built once.
  display_width_px: Type.Optional(Type.Integer({
    minimum: 1,
    description: "Width of the screen as the client's model sees it. Coordinates are scaled from this space and screenshots to it. Default: the real width. At most the server's --max-display-size (default 4096).",
  })),
  display_height_px: Type.Optional(Type.Integer({
    minimum: 1,
    description: "Height of the screen as the client's model sees it. Default: the real height. At most the server's --max-display-size (default 4096).",
  })),
}, { additionalProperties: false, $id: 'ActionQuery', title: 'ActionQuery' })
export type ActionQuery = Static<typeof ActionQuery>
