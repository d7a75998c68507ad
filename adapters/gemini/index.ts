/** Gemini Computer Use (the Gemini API's predefined computer_use functions). */
import { Type } from '@sinclair/typebox'
import type { Adapter } from '../../src/pipeline/adapter.ts'
import type { ActionQuery } from '../../src/schemas/action-query.ts'
import { GeminiComputerUseInput, GeminiFunctionCall } from './computer-use.ts'
import { GeminiFunctionResponse } from './function-response.ts'
import { toNativeResult } from './to-native-result.ts'
import { PIXELS_PER_NOTCH, SEARCH_PAGE, toUnified, type GeminiMeta } from './to-unified.ts'

export type GeminiQuery = ActionQuery & { safety_acknowledgement?: boolean }

export const GRID = { size: { width: 1000, height: 1000 }, name: "Gemini's 1000x1000 normalised grid" }

export const geminiAdapter: Adapter<GeminiComputerUseInput, GeminiMeta, GeminiQuery> = {
  name: 'gemini',
  description: 'A Gemini Computer Use function call `{name, args}` (or the list of one model turn), both the function set of gemini-2.5-computer-use-preview / gemini-3 previews (click_at, type_text_at, scroll_at, key_combination, …) and that of gemini-3.5-flash (click, type, scroll, hotkey, key_down, …), answered with the `functionResponse` part(s) to send back, each with its screenshot. ' +
    `Browser functions become desktop keys: navigate and search are ctrl+l, the address (${SEARCH_PAGE} for search), Enter; go_back/go_forward are alt+Left/Right; open_web_browser only returns the screen. ` +
    `Scroll magnitudes are a share of the screen, turned into wheel notches of ${PIXELS_PER_NOTCH} px. A call whose safety_decision requires confirmation is a 409 until sent with ?safety_acknowledgement=true.`,
  coordinates: "Gemini's 0–999 normalised grid, whatever the display size",
  versions: [{
    name: 'computer_use',
    description: 'Both predefined function sets (legacy and gemini-3.5-flash), as google-gemini/computer-use-preview dispatches them.',
    schema: GeminiComputerUseInput,
  }],
  schemas: [GeminiFunctionCall],
  query: Type.Object({
    safety_acknowledgement: Type.Optional(Type.Boolean({
      description: 'The user confirmed the calls whose safety_decision is require_confirmation: run them, and answer safety_acknowledgement "true".',
    })),
  }),
  space: () => GRID,
  translate: (input, context) => toUnified(input, {
    screen: context.screen,
    acknowledged: context.query.safety_acknowledgement === true,
    screenshots: context.query.screenshot !== false,
  }),
  result: (outcome, _context, translation) => toNativeResult(outcome, translation),
  resultSchema: GeminiFunctionResponse,
}
