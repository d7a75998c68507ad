/**
 * GLM-V's PC action space (zai-org/GLM-V examples/gui-agent/glm-45v, `get_pc_prompt`): the
 * calls and their parameters. `start_element_info`/`end_element_info` and `hold_keys` are the
 * OSWorld evaluation agent's additions, which GLM models trained on it write.
 */
export const FUNCTIONS = {
  left_click: ['start_box', 'element_info', 'hold_keys'],
  right_click: ['start_box', 'element_info', 'hold_keys'],
  middle_click: ['start_box', 'element_info', 'hold_keys'],
  hover: ['start_box', 'element_info'],
  left_double_click: ['start_box', 'element_info', 'hold_keys'],
  left_drag: ['start_box', 'end_box', 'element_info', 'start_element_info', 'end_element_info'],
  key: ['keys'],
  type: ['content'],
  scroll: ['start_box', 'direction', 'step', 'element_info'],
  WAIT: [],
  DONE: [],
  FAIL: [],
} as const satisfies Record<string, readonly string[]>

export type FunctionName = keyof typeof FUNCTIONS

export const TERMINALS = ['WAIT', 'DONE', 'FAIL'] as const

/** The function a written name means: terminals in any case (`done()`), the rest as written. */
export function functionName (written: string): FunctionName | undefined {
  const upper = written.toUpperCase()
  if ((TERMINALS as readonly string[]).includes(upper)) return upper as FunctionName
  return Object.hasOwn(FUNCTIONS, written) ? written as FunctionName : undefined
}
