/** HUD's Common Language Actions (hud-evals/hud-python `hud.adapters.common.types`). */
import type { Adapter } from '../../src/pipeline/adapter.ts'
import type { ActionQuery } from '../../src/schemas/action-query.ts'
import { HudCla, type HudAction } from './cla.ts'
import { HudStepResult } from './result.ts'
import { toNativeResult } from './to-native-result.ts'
import { toUnified, type HudMeta } from './to-unified.ts'

export const hudAdapter: Adapter<HudAction | HudAction[], HudMeta, ActionQuery> = {
  name: 'hud',
  description: "HUD's Common Language Actions, one or a list per step (the body of HUD's env.step), answered as HUD's step result: observation (screenshot, text), reward, terminated, info.",
  coordinates: 'the display (display_width_px/display_height_px, else the screen); scroll amounts are wheel notches',
  versions: [{
    name: 'cla',
    description: 'CLA as hud-python defines it, both the older types (button "wheel", selector) and the newer ones (button "middle", response, logs, reasoning).',
    schema: HudCla,
  }],
  // Like HUD's execute_step, every step answers with a screenshot unless the client declines.
  translate: (input, context) => toUnified(input, context.query.screenshot !== false),
  result: (outcome, _context, translation) => toNativeResult(outcome, translation),
  resultSchema: HudStepResult,
}
