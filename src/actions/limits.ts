/**
 * Bounds on what one request may ask of the desktop (SPEC §7). They are configurable, and
 * the action schemas are built from them, so validation, types and openapi.yaml agree.
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
})
