/**
 * A desktop's environment, as every backend starts the image with it: its own token, listening
 * on every address of its container, files and clipboard on (the desktop is one agent's alone),
 * its home, screen, profile, browser and autostart; the server's shell when the fleet runs with
 * --shell (commands as the desktop's uid 1000 user, inside its own container); OSWorld's guest
 * protocol on GUEST_PORT when it runs with --osworld (the docker backend publishes that port too).
 */
import type { DesktopFacts } from '../backend.ts'
import { DESKTOP_HOME } from '../backend.ts'

/** The guest protocol's port inside the container: desktop_env's default. */
export const GUEST_PORT = 5000

export function desktopEnv (facts: DesktopFacts, options: { shell: boolean, osworld?: boolean }): string[] {
  return [`API_TOKEN=${facts.token}`, 'HOST=0.0.0.0', 'PORT=8000', 'FILES=1', 'CLIPBOARD=1', `DESKTOP_HOME=${DESKTOP_HOME}`, `SCREEN=${facts.screen.width}x${facts.screen.height}x24`, `DESKTOP=${facts.desktop}`, `DESKTOP_BROWSER=${facts.browser}`,
    ...(options.shell ? ['SHELL_TOOL=1'] : []),
    ...(options.osworld ? ['OSWORLD=1', `OSWORLD_PORT=${GUEST_PORT}`] : []),
    // Checked by fleet/options.ts: names launch_app knows, targets without commas.
    ...(facts.autostart.length ? [`AUTOSTART=${facts.autostart.map((a) => a.target === undefined ? a.app : `${a.app}=${a.target}`).join(',')}`] : [])]
}
