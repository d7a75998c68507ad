/**
 * OSWorld's `/terminal`: the text of the terminal that has the focus in the active window
 * (its server reads gnome-terminal's; here any application's `terminal` accessible, such as
 * xfce4-terminal's), trailing whitespace cut; null when there is no such terminal.
 */
import type { RawNode, RawWindow } from '../accessibility/source.ts'
import { AtspiState, hasState } from '../accessibility/states.ts'

export function terminalText (windows: readonly RawWindow[], roots: readonly RawNode[]): string | null {
  const active = roots.filter((root) => hasState(root.states, AtspiState.ACTIVE) ||
    windows.some((window) => window.ref.path === root.ref.path && window.ref.bus === root.ref.bus && hasState(window.states, AtspiState.ACTIVE)))
  const found: RawNode[] = []
  const visit = (node: RawNode) => {
    if (node.role === 'terminal' && hasState(node.states, AtspiState.FOCUSED)) found.push(node)
    node.children.forEach(visit)
  }
  active.forEach(visit)
  return found.length === 1 ? (found[0]!.text ?? '').trimEnd() : null
}
