/** What planning needs to know of the desktop: the allow-list, the accessibility tree, whether window actions can run. */
import type { UnifiedAction } from '../actions/index.ts'
import type { Accessibility } from '../accessibility/service.ts'
import type { Driver } from '../driver/driver.ts'
import type { ClipboardSource } from '../clipboard/source.ts'
import { WINDOW_ACTIONS, type LaunchRules, type PlanContext } from './plan.ts'
import type { Tools } from './tool-plan.ts'

/** Whether window actions can run is asked of the desktop only when a batch has one; whether the shell can run, only when it has a command. */
export async function planContext (actions: UnifiedAction[], driver: Driver, apps: Readonly<Record<string, readonly string[]>>,
  accessibility: Accessibility | undefined, launchRules?: LaunchRules, clipboard?: ClipboardSource, tools?: Tools): Promise<PlanContext> {
  // A shell that cannot run as the desktop's user refuses the batch before any of it runs.
  if (tools?.shell && actions.some((action) => action.action === 'run_command' || action.action === 'bash')) await tools.shell.check()
  if (!actions.some((action) => WINDOW_ACTIONS.has(action.action))) return { apps, accessibility, clipboard, tools }
  const windowsUnavailable = driver.windows ? await driver.windows.unavailable() : `the ${driver.name} driver has no window control`
  return { apps, launchRules, windowsUnavailable, accessibility, clipboard, tools }
}
