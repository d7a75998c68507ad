/** Qwen2.5-VL and Qwen3-VL `computer_use` (QwenLM cookbooks' agent_function_call.py). */
import { Type } from '@sinclair/typebox'
import type { Adapter } from '../../src/adapter.ts'
import type { ActionQuery } from '../../src/schemas/action-query.ts'
import { QwenArguments25, QwenArguments3 } from './arguments.ts'
import { QwenComputerUse25Input, QwenComputerUse3Input, type QwenInput } from './computer-use.ts'
import { parsePayload } from './parse.ts'
import { QwenResult } from './result.ts'
import { QWEN25_RESIZE, spaceOf } from './space.ts'
import { toNativeResult } from './to-native-result.ts'
import { PIXELS_PER_NOTCH, toUnified, type QwenMeta } from './to-unified.ts'

export type QwenQuery = ActionQuery & { version?: '2.5' | '3' }

export const qwenAdapter: Adapter<QwenInput, QwenMeta, QwenQuery> = {
  name: 'qwen',
  description: 'A Qwen `computer_use` call: its arguments {action, …}, the call {name, arguments}, or the model text with <tool_call> blocks (text/plain, or JSON {response}); several calls run in order. ' +
    `Qwen2.5-VL (version=2.5) answers in pixels of its smart-resized screenshot (factor ${QWEN25_RESIZE.factor}, ${QWEN25_RESIZE.minPixels}–${QWEN25_RESIZE.maxPixels} pixels); Qwen3-VL (version=3) on a relative 0–999 grid. ` +
    `scroll/hscroll pixels become wheel notches of ${PIXELS_PER_NOTCH} px (positive pixels scroll up, or right); terminate and answer are reported, not run.`,
  consumes: ['application/json', 'text/plain'],
  coordinates: 'version 2.5: pixels of the smart-resized display; version 3: the 0–999 relative grid',
  versions: [
    { name: '2.5', description: 'Qwen2.5-VL: key, type, mouse_move, clicks, left_click_drag, scroll, wait, terminate; absolute coordinates on the smart-resized screenshot.', schema: QwenComputerUse25Input },
    { name: '3', description: 'Qwen3-VL: adds triple_click, hscroll and answer; coordinates on the 0–999 relative grid.', schema: QwenComputerUse3Input },
  ],
  query: Type.Object({
    version: Type.Optional(Type.Union([Type.Literal('2.5'), Type.Literal('3')], {
      description: 'The model: 2.5 (Qwen2.5-VL, absolute smart-resized pixels; default) or 3 (Qwen3-VL, 0–999 grid).',
    })),
  }),
  version: (query) => query.version,
  space: (context) => spaceOf(context.version, context.display),
  translate (input, context) {
    const label = `qwen ${context.version}`
    const calls = parsePayload(input, context.version === '3' ? QwenArguments3 : QwenArguments25, label)
    return toUnified(calls, {
      label,
      screenshot: context.query.screenshot !== false,
      ...(context.version === '3' && { gridEdge: 1000 }),
    })
  },
  result: (outcome, context, translation) => toNativeResult(outcome, translation, spaceOf(context.version, context.display)),
  resultSchema: QwenResult,
}
