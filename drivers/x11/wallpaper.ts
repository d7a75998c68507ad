/**
 * The full desktop's wallpaper: xfdesktop reads it from xfconf (channel xfce4-desktop, one
 * `…/last-image` property per monitor and workspace) and redraws when it changes, so setting it
 * is `xfconf-query` on the session's D-Bus, run with the session's environment. Every existing
 * `last-image` is set (each monitor and workspace shows it); a session that has none yet gets
 * the one xfdesktop reads on Xvfb's single screen.
 */
import { execFile } from 'node:child_process'

const CHANNEL = 'xfce4-desktop'
/** Xvfb's one output, as xfdesktop names it, on the first workspace. */
const DEFAULT_PROPERTY = '/backdrop/screen0/monitorscreen/workspace0/last-image'
const QUERY_TIMEOUT_MS = 5000

export interface WallpaperTarget {
  display: string
  /** The session's environment (its D-Bus address first of all). */
  env: Readonly<Record<string, string>>
}

function xfconf (target: WallpaperTarget, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('xfconf-query', ['-c', CHANNEL, ...args], {
      env: { ...process.env, ...target.env, DISPLAY: target.display }, timeout: QUERY_TIMEOUT_MS, maxBuffer: 1024 * 1024,
    }, (error, stdout, stderr) => {
      if (error) reject(new Error(`xfconf-query ${args.join(' ')} failed: ${stderr.trim() || error.message}`))
      else resolve(stdout)
    })
  })
}

/** Sets `file` (absolute) as the wallpaper of every monitor and workspace of the session. */
export async function setXfceWallpaper (target: WallpaperTarget, file: string): Promise<string[]> {
  // A channel with no properties yet lists nothing and exits non-zero: that is "none yet".
  const listed = await xfconf(target, ['-l']).catch(() => '')
  const properties = listed.split('\n').map((line) => line.trim()).filter((line) => line.endsWith('/last-image'))
  if (properties.length === 0) {
    await xfconf(target, ['-p', DEFAULT_PROPERTY, '-n', '-t', 'string', '-s', file])
    return [DEFAULT_PROPERTY]
  }
  for (const property of properties) await xfconf(target, ['-p', property, '-s', file])
  return properties
}

/** What a property holds now (for reading back). */
export async function xfconfValue (target: WallpaperTarget, property: string): Promise<string> {
  return (await xfconf(target, ['-p', property])).trim()
}
