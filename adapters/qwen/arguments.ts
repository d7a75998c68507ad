/**
 * The computer tool's arguments, flat as each model family declares them: one `action` and
 * the parameters "required only by" some actions. Qwen2.5-VL and Qwen3-VL (QwenLM cookbooks'
 * `agent_function_call.py`, function `computer_use`); Qwen3.5 and Kimi K2.5 (function
 * `computer`, trycua/cua `loops/qwen35.py` and `loops/moonshot.py`); Fara-7B (microsoft/fara
 * `_prompts.py`, function `computer_use` with browser actions). Which parameters an action
 * needs is checked after validation (to-unified.ts), with a message naming the action;
 * parameters an action does not use are ignored, as the models' own tools ignore them.
 */
import { Type, type Static, type TProperties } from '@sinclair/typebox'
import { StringEnum } from '../../src/actions/common.ts'
import { InvalidNativePayload } from '../../src/errors/errors.ts'

export const ACTIONS_25 = ['key', 'type', 'mouse_move', 'left_click', 'left_click_drag', 'right_click', 'middle_click', 'double_click', 'scroll', 'wait', 'terminate'] as const
/** Qwen3-VL adds these; Qwen3.5 declares the same. */
export const ACTIONS_3 = [...ACTIONS_25, 'triple_click', 'hscroll', 'answer'] as const
/** Kimi K2.5's tool also lists screenshot. */
export const ACTIONS_KIMI = [...ACTIONS_3, 'screenshot'] as const
/** Fara-7B: a browser agent's actions on the Qwen2.5-VL tool. */
export const ACTIONS_FARA = ['key', 'type', 'mouse_move', 'left_click', 'scroll', 'visit_url', 'web_search', 'history_back', 'pause_and_memorize_fact', 'wait', 'refresh', 'terminate'] as const

export type QwenAction = (typeof ACTIONS_KIMI)[number] | (typeof ACTIONS_FARA)[number]

const parameters = {
  keys: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: 'For key: pressed in order, released in reverse order.' })),
  text: Type.Optional(Type.String({ description: 'For type (typed exactly) and answer (reported).' })),
  coordinate: Type.Optional(Type.Array(Type.Number(), {
    minItems: 2,
    maxItems: 2,
    description: '(x, y): pixels of the smart-resized screenshot (2.5, fara), or the relative grid (3: 0–999; 3.5, kimi: 0–1000). Rounded to whole units.',
  })),
  pixels: Type.Optional(Type.Number({ description: 'For scroll/hscroll: positive scrolls up (scroll) or right (hscroll); 120 px per wheel notch (fara: one page).' })),
  time: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'For wait: seconds.' })),
  status: Type.Optional(StringEnum(['success', 'failure'], { description: 'For terminate: reported, not executed.' })),
} satisfies TProperties

const faraParameters = {
  press_enter: Type.Optional(Type.Boolean({ description: 'For type: press Enter after typing (default true, as Fara\'s agent does).' })),
  delete_existing_text: Type.Optional(Type.Boolean({ description: 'For type: select all and delete before typing (default false).' })),
  url: Type.Optional(Type.String({ minLength: 1, description: 'For visit_url: typed into the browser\'s address bar (ctrl+l), then Enter.' })),
  query: Type.Optional(Type.String({ minLength: 1, description: 'For web_search: typed into the browser\'s address bar, which searches with its default engine.' })),
  fact: Type.Optional(Type.String({ description: 'For pause_and_memorize_fact: reported, not executed.' })),
} satisfies TProperties

const argumentsSchema = (actions: readonly QwenAction[], extra: TProperties = {}) => Type.Object({
  action: StringEnum<QwenAction[]>([...actions]),
  ...parameters,
  ...extra,
}, { additionalProperties: false })

export const QwenArguments25 = argumentsSchema(ACTIONS_25)
export const QwenArguments3 = argumentsSchema(ACTIONS_3)
export const QwenArgumentsKimi = argumentsSchema(ACTIONS_KIMI)
export const QwenArgumentsFara = argumentsSchema(ACTIONS_FARA, faraParameters)

type FaraParameters = { [K in keyof typeof faraParameters]?: Static<(typeof faraParameters)[K]> }

export type QwenArguments = Omit<Static<typeof QwenArguments3>, 'action'> & FaraParameters & { action: QwenAction }

/** An argument the action needs (checked after validation: the schema cannot say which action needs which). */
export function need<K extends keyof QwenArguments> (args: QwenArguments, field: K, where: string): NonNullable<QwenArguments[K]> {
  const value = args[field]
  if (value === undefined) throw new InvalidNativePayload(`${where} needs '${String(field)}'`)
  return value as NonNullable<QwenArguments[K]>
}
