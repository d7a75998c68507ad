/**
 * What the route answers: the `functionResponse` part(s) the client appends to the next
 * `Content(role="user")`, as google-gemini/computer-use-preview `agent.py` builds them
 * (`FunctionResponse(name, response={...}, parts=[FunctionResponsePart(inline_data=...)])`),
 * in the API's JSON field names (functionResponse, inlineData, mimeType). One part for one
 * call, a list for a list, in the same order.
 */
import { Type, type Static } from '@sinclair/typebox'
import { ImageMediaType } from '../../src/schemas/action-query.ts'

const InlinePng = Type.Object({
  inlineData: Type.Object({
    mimeType: ImageMediaType,
    data: Type.String({ description: 'Base64 PNG of the screen after the call, at the display size.' }),
  }),
})

export const GeminiFunctionResponsePart = Type.Object({
  functionResponse: Type.Object({
    id: Type.Optional(Type.String({ description: 'The id of the call answered, when it had one.' })),
    name: Type.String({ description: 'The name of the call answered.' }),
    response: Type.Object({
      safety_acknowledgement: Type.Optional(Type.Literal('true', {
        description: 'The call was held for confirmation and the user confirmed it (Google\'s docs ask for this exact string).',
      })),
      error: Type.Optional(Type.String({ description: 'Why the call failed or did not run.' })),
    }, { description: 'No `url`: a desktop has no single page address.' }),
    parts: Type.Optional(Type.Array(InlinePng, { description: 'The screenshot, absent when the call did not run or screenshot=false.' })),
  }),
})
export type GeminiFunctionResponsePart = Static<typeof GeminiFunctionResponsePart>

export const GeminiFunctionResponse = Type.Union([
  GeminiFunctionResponsePart,
  Type.Array(GeminiFunctionResponsePart),
], {
  $id: 'GeminiFunctionResponse',
  title: 'GeminiFunctionResponse',
  description: 'One `functionResponse` part per function call sent: a part for a call, a list for a list.',
})
export type GeminiFunctionResponse = Static<typeof GeminiFunctionResponse>
