/** The outcome → Operator's ToolResult (see result.ts). */
import type { WindowInfo } from '../../src/actions/index.ts'
import type { AdapterOutcome, Translation } from '../../src/pipeline/adapter.ts'
import type { OperatorToolResult } from './result.ts'
import type { OperatorMeta } from './to-unified.ts'

export function toNativeResult (outcome: AdapterOutcome, translation: Translation<OperatorMeta>): OperatorToolResult {
  const window = translation.meta.window ? outcome.results.find((r) => r.window)?.window ?? null : null
  const metadata = { cursor: outcome.cursor, screenshot: outcome.screenshot, window, error: outcome.error }
  if (outcome.error) return { success: false, output: null, error: outcome.error.message, metadata }
  const output = window ? `${translation.meta.done}: ${describe(window)}.` : translation.meta.done
  return { success: true, output, error: null, metadata }
}

function describe (window: WindowInfo): string {
  const owner = [window.class && `class ${window.class}`, window.pid !== null && `pid ${window.pid}`].filter(Boolean).join(', ')
  return `window ${window.id} ${JSON.stringify(window.title)}${owner ? ` (${owner})` : ''} at (${window.x},${window.y}), ${window.width}x${window.height}${window.focused ? ', focused' : ''}`
}
