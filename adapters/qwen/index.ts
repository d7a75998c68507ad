/**
 * The Qwen family's computer tool: Qwen2.5-VL and Qwen3-VL `computer_use` (QwenLM cookbooks'
 * agent_function_call.py), Qwen3.5 and Kimi K2.5 `computer`, Fara-7B's browser actions.
 */
import { Type } from '@sinclair/typebox'
import type { Adapter } from '../../src/pipeline/adapter.ts'
import type { ActionQuery } from '../../src/schemas/action-query.ts'
import { QWEN_INPUTS, type QwenInput } from './computer-use.ts'
import { FAMILY, QWEN25_RESIZE, spaceOf, type Family } from './family.ts'
import { parsePayload } from './parse.ts'
import { QwenResult } from './result.ts'
import { toNativeResult } from './to-native-result.ts'
import { PIXELS_PER_NOTCH, toUnified, type QwenMeta } from './to-unified.ts'

export type QwenQuery = ActionQuery & { version?: Family }

const RESIZE = `factor ${QWEN25_RESIZE.factor}, ${QWEN25_RESIZE.minPixels}–${QWEN25_RESIZE.maxPixels} pixels`

export const qwenAdapter: Adapter<QwenInput, QwenMeta, QwenQuery> = {
  name: 'qwen',
  description: 'A Qwen-family computer tool call (function computer_use or computer): its arguments {action, …}, the call {name, arguments}, the chat message of an OpenAI-compatible server {role, content, tool_calls}, or the model text with <tool_call> blocks holding JSON or the XML form <function=computer><parameter=action>…</parameter></function> (text/plain, or JSON {response}); several calls run in order. ' +
    `The version query names the model and so its coordinates: Qwen2.5-VL (2.5) and Fara-7B (fara) answer in pixels of their smart-resized screenshot (${RESIZE}); Qwen3-VL (3) on a relative 0–999 grid; Qwen3.5 (3.5) and Kimi K2.5 (kimi) on a relative 0–1000 grid. ` +
    `scroll/hscroll pixels become wheel notches of ${PIXELS_PER_NOTCH} px (positive pixels scroll up, or right); Fara's browser actions become browser keys (visit_url and web_search: ctrl+l, the text, Enter; history_back: alt+Left; refresh: F5); terminate, answer and pause_and_memorize_fact are reported, not run.`,
  consumes: ['application/json', 'text/plain'],
  coordinates: 'version 2.5 and fara: pixels of the smart-resized display; version 3: the 0–999 relative grid; versions 3.5 and kimi: the 0–1000 relative grid',
  versions: [
    { name: '2.5', description: 'Qwen2.5-VL: key, type, mouse_move, clicks, left_click_drag, scroll, wait, terminate; absolute coordinates on the smart-resized screenshot.', schema: QWEN_INPUTS['2.5'] },
    { name: '3', description: 'Qwen3-VL: adds triple_click, hscroll and answer; coordinates on the 0–999 relative grid.', schema: QWEN_INPUTS['3'] },
    { name: '3.5', description: 'Qwen3.5: the Qwen3-VL actions on the function computer, often in the XML form; coordinates on the 0–1000 relative grid.', schema: QWEN_INPUTS['3.5'] },
    { name: 'kimi', description: 'Kimi K2.5: the Qwen3-VL actions and screenshot on the function computer, through tool_calls; coordinates on the 0–1000 relative grid.', schema: QWEN_INPUTS.kimi },
    { name: 'fara', description: 'Fara-7B: key, type (coordinate, press_enter, delete_existing_text), mouse_move, left_click, scroll (a page), visit_url, web_search, history_back, refresh, wait, pause_and_memorize_fact, terminate; smart-resized pixels.', schema: QWEN_INPUTS.fara },
  ],
  query: Type.Object({
    version: Type.Optional(Type.Union(Object.keys(FAMILY).sort().map((family) => Type.Literal(family)), {
      description: 'The model: 2.5 (Qwen2.5-VL, absolute smart-resized pixels; default), 3 (Qwen3-VL, 0–999 grid), 3.5 (Qwen3.5, 0–1000 grid), kimi (Kimi K2.5, 0–1000 grid) or fara (Fara-7B, smart-resized pixels).',
    })),
  }),
  version: (query) => query.version,
  space: (context) => spaceOf(context.version, context.display),
  translate (input, context) {
    const family = context.version as Family
    const label = `qwen ${family}`
    const calls = parsePayload(input, FAMILY[family].args, label)
    return toUnified(calls, {
      label,
      screenshot: context.query.screenshot !== false,
      ...(FAMILY[family].grid && { gridEdge: 1000 }),
      ...(family === 'fara' && { fara: true }),
    })
  },
  result: (outcome, context, translation) => toNativeResult(outcome, translation, spaceOf(context.version, context.display)),
  resultSchema: QwenResult,
}
