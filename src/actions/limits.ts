/**
 * Bounds on what one request may ask of the desktop (SPEC §7). They are configurable, and
 * the action schemas are built from them, so validation, types and openapi.yaml agree. What
 * an adapter translates to never passes through those schemas, so `limitViolation` checks the
 * same bounds on every planned action, with the same words.
 */
export interface Limits {
  /** Longest `wait`, in seconds. */
  maxWaitSeconds: number
  /** Longest `press_key.duration`, in seconds. */
  maxKeyHoldSeconds: number
  /** Longest `type_text.text`, in characters. */
  maxTextLength: number
  /** Most points in a `drag_mouse.path`. */
  maxPathPoints: number
  /** Most clicks in one `click_mouse`. */
  maxClicks: number
  /** Most keys in one combo (`keys` or `hold_keys`). */
  maxComboKeys: number
  /** Most actions in one batch. */
  maxBatchActions: number
  /** Largest request body, in bytes. */
  maxBodyBytes: number
  /** Most wheel notches one `scroll` turns, per axis. */
  maxScrollNotches: number
  /** Largest declared display side (display_width_px, display_height_px), in pixels. */
  maxDisplaySide: number
  /** Longest a batch may keep the desktop waiting: its waits and key holds together, in seconds. */
  maxBatchSeconds: number
}

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  maxWaitSeconds: 60,
  maxKeyHoldSeconds: 30,
  maxTextLength: 100_000,
  maxPathPoints: 1_000,
  maxClicks: 10,
  maxComboKeys: 10,
  maxBatchActions: 100,
  maxBodyBytes: 1024 * 1024,
  maxScrollNotches: 100,
  maxDisplaySide: 4096,
  maxBatchSeconds: 120,
})

/** The flag that sets each limit (src/runtime/config.ts), named in every refusal so an operator knows what to change. */
export const LIMIT_FLAGS: Readonly<Record<keyof Limits, string>> = Object.freeze({
  maxWaitSeconds: 'max-wait',
  maxKeyHoldSeconds: 'max-key-hold',
  maxTextLength: 'max-text',
  maxPathPoints: 'max-path',
  maxClicks: 'max-clicks',
  maxComboKeys: 'max-combo',
  maxBatchActions: 'max-batch',
  maxBodyBytes: 'max-body-bytes',
  maxScrollNotches: 'max-scroll-notches',
  maxDisplaySide: 'max-display-size',
  maxBatchSeconds: 'max-batch-seconds',
})

const flag = (limit: keyof Limits) => `(--${LIMIT_FLAGS[limit]})`

/**
 * The refusal for each limit, shared by the schemas (ajv-errors messages) and the planning
 * check, so a bound reads the same whichever of them meets it first. Made once per set of
 * limits: the planning check asks for them on every action.
 */
export function limitMessages (limits: Limits): LimitMessages {
  let messages = made.get(limits)
  if (!messages) made.set(limits, messages = messagesFor(limits))
  return messages
}

type LimitMessages = ReturnType<typeof messagesFor>
const made = new WeakMap<Limits, LimitMessages>()

const messagesFor = (limits: Limits) => ({
  wait: `duration may be at most ${limits.maxWaitSeconds} seconds ${flag('maxWaitSeconds')}`,
  keyHold: `duration may be at most ${limits.maxKeyHoldSeconds} seconds ${flag('maxKeyHoldSeconds')}`,
  text: `text may be at most ${limits.maxTextLength} characters ${flag('maxTextLength')}`,
  value: `value may be at most ${limits.maxTextLength} characters ${flag('maxTextLength')}`,
  path: `path may have at most ${limits.maxPathPoints} points ${flag('maxPathPoints')}`,
  clicks: `num_clicks must be an integer from 1 to ${limits.maxClicks} ${flag('maxClicks')}`,
  keys: (field: 'keys' | 'hold_keys') => `${field} may hold at most ${limits.maxComboKeys} keys ${flag('maxComboKeys')}`,
  batch: `a batch may have at most ${limits.maxBatchActions} actions ${flag('maxBatchActions')}`,
  /** `value` is the delta as sent (the schemas pass ajv-errors' `${0}`, the value itself). */
  scroll: (field: 'delta_x' | 'delta_y', value: string) =>
    `scroll ${field} ${value} is over the limit of ${limits.maxScrollNotches} notches ${flag('maxScrollNotches')}`,
  display: (field: string, value: number) =>
    `${field} ${value} is over the limit of ${limits.maxDisplaySide} pixels ${flag('maxDisplaySide')}`,
  batchSeconds: (seconds: number) =>
    `the batch's waits and key holds come to ${round(seconds)} seconds by here, over the limit of ${limits.maxBatchSeconds} seconds ${flag('maxBatchSeconds')}`,
})

const round = (seconds: number) => Math.round(seconds * 1000) / 1000
