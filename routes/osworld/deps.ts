/** What every route of the guest protocol is given (routes/osworld/index.ts builds them). */
import type { GuestShell } from '../../src/osworld/shell.ts'
import type { Executor } from '../../src/executor/executor.ts'
import type { AdapterPipeline } from '../../src/pipeline/adapter-pipeline.ts'
import type { AccessibilitySource } from '../../src/accessibility/source.ts'
import type { FileStore } from '../../src/files/store.ts'
import type { Recorder } from '../../src/recording/recorder.ts'

/** What the guest serves from: the desktop's own parts, shared with the server. */
export interface GuestDeps {
  executor: Executor
  /** The pyautogui dialect's pipeline (absolute pixels), which /execute's code runs through. */
  pyautogui: AdapterPipeline
  accessibility: AccessibilitySource
  /** The home jail; its home is the VM user's home of OSWorld's paths. */
  files: FileStore
  home: string
  /** launch_app's allow-list: the names /setup/launch and /setup/open_file may start. */
  apps: readonly string[]
  recorder: Recorder | null
  /** Runs what is not pyautogui code; without it such commands are refused (403, naming --shell). */
  shell?: GuestShell
  /** Sets the wallpaper (an absolute path in the home): the full desktop only; without it /setup/change_wallpaper is refused (400). */
  wallpaper?: (file: string) => Promise<void>
}
