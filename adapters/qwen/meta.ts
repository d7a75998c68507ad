/** What a Qwen translation keeps for its result, shared by the translators (to-unified.ts, fara-actions.ts). */
import type { CallSpan } from '../../src/pipeline/adapter.ts'
import type { QwenAction } from './arguments.ts'

/** The call's span of the translation's actions (`CallSpan`), and what its result needs. */
export interface QwenCallMeta extends CallSpan {
  action: QwenAction
}

export interface QwenMeta {
  calls: QwenCallMeta[]
  /** terminate's status, or "success" for answer (Qwen3-VL: "answer … and terminate the task"). */
  terminate: 'success' | 'failure' | null
  answer: string | null
  /** Fara's pause_and_memorize_fact, in order; absent when there were none. */
  facts?: string[]
}

export type XY = [number, number]
