/** Query parameters every action route accepts (SPEC §5). */
import { Type, type Static } from '@sinclair/typebox'

export const ActionQuery = Type.Object({
  screenshot: Type.Optional(Type.Boolean({
    description: 'Attach a PNG screenshot taken after the action (after the last one, for a batch).',
  })),
  display_width_px: Type.Optional(Type.Integer({
    minimum: 1, maximum: 16384,
    description: "Width of the screen as the client's model sees it. Coordinates are scaled from this space and screenshots to it. Default: the real width.",
  })),
  display_height_px: Type.Optional(Type.Integer({
    minimum: 1, maximum: 16384,
    description: "Height of the screen as the client's model sees it. Default: the real height.",
  })),
}, { additionalProperties: false, $id: 'ActionQuery', title: 'ActionQuery' })
export type ActionQuery = Static<typeof ActionQuery>
