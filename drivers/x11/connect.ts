/**
 * Opens an X connection with an atom cache of its own. node-x11 keeps one cache for every
 * connection of the process (lib/xcore.js: `this.atoms = stdatoms`, filled by each InternAtom
 * reply), so an atom interned on one X server is answered from that cache on another: after
 * Xvfb restarts, or with two displays in one process, a connection would use a number that
 * names a different atom there (_NET_WM_PING's number was WM_DELETE_WINDOW on a second display,
 * and the focus ping closed the window it pinged).
 */
import x11, { type Display, type XClient } from 'x11'

interface AtomCache { atoms: Record<string, number>, atom_names: Record<number, string> }

export function createClient (display: string, callback: (error: Error | null, info: Display) => void): XClient {
  const client: XClient = x11.createClient({ display }, (error, info) => {
    // The connection's setup (init) sets the shared cache; this runs before any request.
    if (!error) {
      const cache = client as unknown as AtomCache
      cache.atoms = { ...cache.atoms }
      cache.atom_names = { ...cache.atom_names }
    }
    callback(error, info)
  })
  return client
}
