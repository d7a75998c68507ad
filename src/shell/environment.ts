/**
 * The environment a shell command gets: built from nothing, never copied from the server's.
 * The server's own environment may hold its token, a token file's name, a fleet key or a cloud
 * credential; a list of names to remove would miss the next one, so only what a desktop
 * program needs is named here.
 */
import type { ShellUser } from './user.ts'

const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

export function shellEnvironment (user: ShellUser, x: { display?: string | undefined, xauthority?: string | undefined }): Record<string, string> {
  const env: Record<string, string> = {
    PATH,
    HOME: user.home,
    SHELL: '/bin/bash',
    LANG: process.env.LANG || 'C.UTF-8',
    TERM: 'dumb',
    // No pager waits for a key nobody presses.
    PAGER: 'cat',
    GIT_PAGER: 'cat',
  }
  if (x.display) env.DISPLAY = x.display
  if (x.xauthority) env.XAUTHORITY = x.xauthority
  return env
}
