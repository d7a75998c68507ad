/**
 * `computer_use_preview` (model computer-use-preview; the tool declares display_width,
 * display_height and environment): a computer_call carries one `action`.
 */
import { previewBody } from './computer-call.ts'

export const OpenaiComputerUsePreviewInput = previewBody('OpenaiComputerUsePreviewInput',
  'A computer_call item of the computer_use_preview tool, or its action.')
