/**
 * The tool's `app` action → the window extension. Operator-Use's Desktop.app(mode, name,
 * loc, size): launch starts an application by name, switch brings a window to the front, resize
 * and move act on a window's size or top-left corner.
 *
 * `name` selects a window by title (a case-insensitive part of it), not by WM_CLASS: the
 * Operator tool shows the model its windows by title (DesktopState's window names), and its
 * backends find them so (Windows: WindowControl(Name=name); Windows-MCP: a fuzzy title match).
 * launch names an entry of the server's allow-list, never a command line.
 */
import type { UnifiedAction } from '../../src/actions/index.ts'
import { InvalidNativePayload, UnsupportedAction } from '../../src/errors/errors.ts'
import { unreachable } from '../../src/errors/unreachable.ts'
import type { OperatorInput } from './computer.ts'
import { eitherPair } from './fields.ts'

export interface AppStep {
  action: UnifiedAction
  /** The tool's words before the window found is described. */
  done: string
}

export function appAction (input: OperatorInput): AppStep {
  const mode = input.mode ?? 'launch'
  const { name } = input
  switch (mode) {
    case 'launch':
      if (!name) throw new InvalidNativePayload('operator: name is required for app launch')
      return { action: { action: 'launch_app', app: name }, done: `Launched ${name}` }
    case 'switch':
      if (!name) throw new InvalidNativePayload('operator: name is required for app switch')
      return { action: { action: 'focus_window', window: { title: name } }, done: `Switched to ${name}` }
    case 'resize': {
      const size = eitherPair(input, ['size', 'window_size'])
      if (!size) throw new InvalidNativePayload('operator: size [width, height] (or window_size) is required for app resize')
      const corner = eitherPair(input, ['loc', 'window_loc'])
      return {
        action: { action: 'set_window_geometry', window: { title: windowName(name, mode) }, ...(corner && { x: corner[0], y: corner[1] }), width: size[0], height: size[1] },
        done: `Resized ${name} to ${size[0]}x${size[1]}${corner ? ` at ${corner[0]},${corner[1]}` : ''}`,
      }
    }
    case 'move': {
      const corner = eitherPair(input, ['loc', 'window_loc'])
      if (!corner) throw new InvalidNativePayload('operator: loc [x, y] (or window_loc) is required for app move')
      const size = eitherPair(input, ['size', 'window_size'])
      return {
        action: { action: 'set_window_geometry', window: { title: windowName(name, mode) }, x: corner[0], y: corner[1], ...(size && { width: size[0], height: size[1] }) },
        done: `Moved ${name} to ${corner[0]},${corner[1]}${size ? ` as ${size[0]}x${size[1]}` : ''}`,
      }
    }
    default:
      return unreachable(mode, 'app mode')
  }
}

/** Operator resizes and moves the frontmost window when no name is given; window selectors cannot say "the focused one" yet. */
function windowName (name: string | undefined, mode: 'resize' | 'move'): string {
  if (name) return name
  throw new UnsupportedAction(`operator: app ${mode} without name means the frontmost window, which this server cannot select yet; give name (a part of the window's title)`)
}
