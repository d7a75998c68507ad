/**
 * Fara-7B's actions that differ from Qwen's, as its own agent carries them out (microsoft/fara
 * `fara_agent.py` `execute_action`), on a desktop: its browser actions become the keys a
 * desktop browser (Chromium, Firefox) takes for them, since the desktop has no browser API.
 * - type: click the coordinate if given, select all and delete if `delete_existing_text`, type,
 *   then Enter unless `press_enter` is false (the agent's defaults: Enter yes, delete no).
 * - scroll: one page up (pixels > 0) or down, as the agent's page_up/page_down.
 * - visit_url and web_search: focus the address bar (ctrl+l), type the URL or the query, Enter;
 *   the address bar opens a URL and searches anything else with the browser's default engine
 *   (Fara's agent searches Bing: the engine is the browser's here).
 * - history_back: alt+Left; refresh: F5.
 * - pause_and_memorize_fact: reported (the result's `facts`), nothing runs.
 */
import type { UnifiedAction } from '../../src/actions/index.ts'
import { InvalidNativePayload } from '../../src/errors/errors.ts'
import { unreachable } from '../../src/errors/unreachable.ts'
import { need, type QwenArguments } from './arguments.ts'
import type { QwenMeta, XY } from './meta.ts'

export const FARA_ONLY = new Set(['type', 'scroll', 'visit_url', 'web_search', 'history_back', 'refresh', 'pause_and_memorize_fact'] as const)
type FaraOnly = typeof FARA_ONLY extends Set<infer A> ? A : never

const press = (...keys: string[]): UnifiedAction => ({ action: 'press_key', keys })

/** Typed into the focused address bar, then opened. */
const addressBar = (text: string): UnifiedAction[] => [press('ctrl', 'l'), { action: 'type_text', text }, press('Return')]

export function faraActions (args: QwenArguments, where: string, point: (coordinate: number[]) => XY, meta: QwenMeta): UnifiedAction[] {
  const action = args.action as FaraOnly
  switch (action) {
    case 'type': {
      const text = need(args, 'text', where)
      return [
        ...(args.coordinate ? [{ action: 'click_mouse', button: 'left', coordinates: point(args.coordinate) } as const] : []),
        ...(args.delete_existing_text === true ? [press('ctrl', 'a'), press('BackSpace')] : []),
        ...(text === '' ? [] : [{ action: 'type_text', text } as const]),
        ...(args.press_enter === false ? [] : [press('Return')]),
      ]
    }
    case 'scroll': {
      const pixels = need(args, 'pixels', where)
      if (pixels === 0) throw new InvalidNativePayload(`${where}: pixels must not be 0`)
      return [press(pixels > 0 ? 'Page_Up' : 'Page_Down')]
    }
    case 'visit_url':
      return addressBar(need(args, 'url', where))
    case 'web_search':
      return addressBar(need(args, 'query', where))
    case 'history_back':
      return [press('alt', 'Left')]
    case 'refresh':
      return [press('F5')]
    case 'pause_and_memorize_fact':
      (meta.facts ??= []).push(need(args, 'fact', where))
      return []
    default:
      return unreachable(action, 'Fara action')
  }
}
