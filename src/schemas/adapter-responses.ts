/** What the adapter routes answer besides each adapter's own result: the list and a translation. */
import { Type, type Static } from '@sinclair/typebox'

export const AdapterInfo = Type.Object({
  name: Type.String({ description: 'The path segment: POST /computer/{name}.' }),
  description: Type.String(),
  versions: Type.Array(Type.Object({ name: Type.String(), description: Type.String() })),
  default_version: Type.String(),
  coordinates: Type.String({ description: 'The space the payload\'s coordinates are in.' }),
}, { $id: 'AdapterInfo', title: 'AdapterInfo' })

export const AdapterList = Type.Object({
  adapters: Type.Array(Type.Ref(AdapterInfo)),
}, { $id: 'AdapterList', title: 'AdapterList' })
export type AdapterList = Static<typeof AdapterList>

export const TranslateResponse = Type.Object({
  adapter: Type.String(),
  version: Type.String(),
  actions: Type.Array(Type.Ref('UnifiedAction'), { description: 'Unified actions, in order, as one batch.' }),
  screenshot: Type.Boolean({ description: 'Whether the adapter attaches a screenshot after the last action.' }),
  display_width_px: Type.Integer({ description: 'Width of the space the actions\' coordinates are in.' }),
  display_height_px: Type.Integer({ description: 'Height of that space.' }),
  meta: Type.Unknown({ description: 'What the adapter keeps for its result (call ids, the model\'s thought, a final answer), or null.' }),
}, { $id: 'TranslateResponse', title: 'TranslateResponse' })
