/**
 * `computer` (the GA tool, `{ "type": "computer" }`, gpt-5.4 and later): a computer_call
 * carries a batch of `actions`. The tool declares no display size: the model's pixels are
 * those of the screenshots it is sent, i.e. display_width_px/display_height_px or the screen.
 */
import { batchBody } from './computer-call.ts'

export const OpenaiComputerInput = batchBody('OpenaiComputerInput',
  'A computer_call item of the computer tool (with `actions` or `action`), one of its actions, or its list of actions.')
