/** Action rules that 20250124 and 20251124 share word for word. */
import { DEFAULT_LIMITS } from '../../src/actions/limits.ts'
import type { ActionRule } from './action-rules.ts'

/** Clicks from 20250124 on: at `coordinate` or where the pointer is, holding the keys in `text`. */
export const CLICK: ActionRule = { optional: ['coordinate', 'text'] }

export const DRAG: ActionRule = {
  required: ['coordinate'],
  // The reference demo's tool ignores start_coordinate and drags from the pointer in every
  // version; without one we do the same.
  optional: ['start_coordinate', 'text'],
}

// Documented without a coordinate; one is unambiguous (press or release there), so it is taken.
export const BUTTON: ActionRule = { optional: ['coordinate'] }

export const SCROLL: ActionRule = { required: ['scroll_direction', 'scroll_amount'], optional: ['coordinate', 'text'] }

// The unified bounds, not the demo's 100 s: a longer hold or wait would be refused later anyway.
export const HOLD_KEY: ActionRule = {
  required: ['text', 'duration'],
  bounds: { duration: { maximum: DEFAULT_LIMITS.maxKeyHoldSeconds, errorMessage: `hold_key duration may be at most ${DEFAULT_LIMITS.maxKeyHoldSeconds} seconds` } },
}

export const WAIT: ActionRule = {
  required: ['duration'],
  bounds: { duration: { maximum: DEFAULT_LIMITS.maxWaitSeconds, errorMessage: `wait duration may be at most ${DEFAULT_LIMITS.maxWaitSeconds} seconds` } },
}
