/** Action rules that 20250124 and 20251124 share word for word. */
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

// The demo's own bound is 100 s (fields.ts); the server's limits (--max-key-hold, --max-wait)
// hold on what these translate to, while planning.
export const HOLD_KEY: ActionRule = { required: ['text', 'duration'] }

export const WAIT: ActionRule = { required: ['duration'] }
