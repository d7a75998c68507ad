/**
 * Window management through the window manager's EWMH interface, on a pure-JavaScript X
 * connection (node-x11): the client list and its stacking order, titles, classes, pids and
 * geometry read from properties; activation and move/resize asked of the window manager with
 * root-window ClientMessages, then awaited (bounded) until it has carried them out. A dead X
 * server is an error here, never a process exit.
 */
import { setTimeout as delay } from 'node:timers/promises'
import { type GetPropertyReply, type XClient } from 'x11'
import { createClient } from './connect.ts'
import type { Rect, WindowState } from '../../src/driver/driver.ts'

/** How long one request may take before the connection counts as stuck. */
const REQUEST_TIMEOUT_MS = 5000
/** How long the window manager gets to carry out an activation or a move/resize. */
const SETTLE_TIMEOUT_MS = 2000
const POLL_MS = 20
/** A move/resize that stopped changing for this long is done, even if not as asked (size steps). */
const STABLE_MS = 100
/** Longest property read, in 32-bit units (titles, lists). */
const MAX_PROPERTY_LONGS = 1 << 16

// Core atoms have fixed numbers (X11 protocol, predefined atoms).
const LAST_PREDEFINED_ATOM = 68
const ATOM = { WM_NAME: 39, WM_CLASS: 67, STRING: 31, WINDOW: 33, CARDINAL: 6, ATOM: 4 } as const
const EWMH_ATOMS = [
  '_NET_SUPPORTING_WM_CHECK', '_NET_CLIENT_LIST', '_NET_ACTIVE_WINDOW',
  '_NET_WM_NAME', '_NET_WM_PID', '_NET_MOVERESIZE_WINDOW', 'UTF8_STRING',
  '_NET_WM_STATE', '_NET_WM_STATE_MAXIMIZED_VERT', '_NET_WM_STATE_MAXIMIZED_HORZ', '_NET_WORKAREA',
  '_NET_CLOSE_WINDOW',
] as const
type EwmhAtom = typeof EWMH_ATOMS[number]

/** _NET_MOVERESIZE_WINDOW: StaticGravity (x, y are the client's own corner), which fields, from a pager. */
const STATIC_GRAVITY = 10
const MOVERESIZE_FLAGS = { x: 1 << 8, y: 1 << 9, width: 1 << 10, height: 1 << 11 } as const
const SOURCE_PAGER = 2
const FIELDS = ['x', 'y', 'width', 'height'] as const

/** X protocol errors carry their numeric code; connection failures do not. */
const isProtocolError = (error: unknown) => typeof (error as { error?: unknown })?.error === 'number'

export class Ewmh {
  readonly display: string
  readonly #client: XClient
  readonly #root: number
  readonly #atoms: Record<EwmhAtom, number>
  #failure: Error | undefined
  readonly #lost: Promise<never>
  #lose!: (error: Error) => void

  private constructor (display: string, client: XClient, root: number, atoms: Record<EwmhAtom, number>) {
    this.display = display
    this.#client = client
    this.#root = root
    this.#atoms = atoms
    this.#lost = new Promise<never>((_resolve, reject) => { this.#lose = reject })
    this.#lost.catch(() => {})
    client.on('error', (error: Error) => { if (!isProtocolError(error)) this.#fail(error) })
    client.on('end', () => this.#fail(new Error('the X connection closed')))
  }

  /** Connects to `display` (which must already answer: see probeDisplay). */
  static open (display: string): Promise<Ewmh> {
    return new Promise((resolve, reject) => {
      const client = createClient(display, (error, info) => {
        if (error) { reject(error); return }
        // node-x11 caches interned atoms in one object shared by all its connections, so an
        // atom of another (or an earlier) X server would be taken for this one's: keep the
        // predefined atoms only, in a cache of this connection's own.
        const predefined = Object.entries(client.atoms).filter(([, atom]) => atom <= LAST_PREDEFINED_ATOM)
        client.atoms = Object.fromEntries(predefined)
        client.atom_names = Object.fromEntries(predefined.map(([name, atom]) => [atom, name]))
        const root = info.screen[0]!.root
        Promise.all(EWMH_ATOMS.map((name) => new Promise<[EwmhAtom, number]>((resolveAtom, rejectAtom) => {
          client.InternAtom(false, name, (atomError, atom) => {
            if (atomError) rejectAtom(atomError)
            else resolveAtom([name, atom])
            return true
          })
        }))).then((pairs) => resolve(new Ewmh(display, client, root, Object.fromEntries(pairs) as Record<EwmhAtom, number>)), reject)
      })
      client.once('error', reject)
    })
  }

  /** The X connection is gone (X died, or close()). */
  get failed (): boolean { return this.#failure !== undefined }

  close (): void {
    this.#fail(new Error('closed'))
    this.#client.terminate()
  }

  /** True when an EWMH window manager announces itself on the root window (and its check window exists). */
  async managed (): Promise<boolean> {
    const check = this.#windows(await this.#property(this.#root, this.#atoms._NET_SUPPORTING_WM_CHECK, ATOM.WINDOW))[0]
    if (!check) return false
    const again = await this.#property(check, this.#atoms._NET_SUPPORTING_WM_CHECK, ATOM.WINDOW).catch(() => undefined)
    return again !== undefined && this.#windows(again)[0] === check
  }

  /**
   * True when the window manager keeps part of the screen from windows (a panel's strut): its
   * _NET_WORKAREA is smaller than the root. A window maximised before that fills the screen
   * under the panel, one maximised after stops at its edge.
   */
  async reserved (): Promise<boolean> {
    const [area, root] = await Promise.all([
      this.#property(this.#root, this.#atoms._NET_WORKAREA, ATOM.CARDINAL),
      this.#request<{ width: number, height: number }>((callback) => this.#client.GetGeometry(this.#root, callback)),
    ])
    if (area.format !== 32 || area.data.length < 16) return false
    const [x, y, width, height] = [0, 1, 2, 3].map((i) => area.data.readUInt32LE(i * 4))
    return x! > 0 || y! > 0 || width! < root.width || height! < root.height
  }

  /** The managed windows, highest in the stacking order first. */
  async list (): Promise<WindowState[]> {
    const ids = await this.#stacked(this.#windows(await this.#property(this.#root, this.#atoms._NET_CLIENT_LIST, ATOM.WINDOW)))
    const active = await this.activeWindow()
    const states = await Promise.all(ids.map((id) => this.#state(id, active).catch((error: unknown) => {
      // Closed between the list and its properties: not a window any more.
      if (isProtocolError(error)) return undefined
      throw error
    })))
    return states.filter((state): state is WindowState => state !== undefined)
  }

  async activeWindow (): Promise<number | undefined> {
    return this.#windows(await this.#property(this.#root, this.#atoms._NET_ACTIVE_WINDOW, ATOM.WINDOW))[0] || undefined
  }

  /**
   * Asks the window manager to activate the window (raise, focus), as a pager would, and
   * waits until it is _NET_ACTIVE_WINDOW and has the input focus.
   */
  async activate (id: number): Promise<void> {
    const current = (await this.activeWindow()) ?? 0
    await this.#request<void>((callback) => this.#client.SendClientMessage(this.#root, id, this.#atoms._NET_ACTIVE_WINDOW, 32, [SOURCE_PAGER, 0, current, 0, 0], callback))
    const done = await this.#until(async () => (await this.activeWindow()) === id && await this.#hasFocus(id))
    if (!done) throw new Error(`the window manager did not activate window 0x${id.toString(16)} within ${SETTLE_TIMEOUT_MS} ms`)
  }

  /**
   * Asks the window manager to maximise the window (_NET_WM_STATE add, both axes) and waits
   * until it says so on the window; a window manager that ignores it is given up on quietly.
   */
  async maximize (id: number): Promise<void> {
    const { _NET_WM_STATE: state, _NET_WM_STATE_MAXIMIZED_VERT: vert, _NET_WM_STATE_MAXIMIZED_HORZ: horz } = this.#atoms
    const ADD = 1
    await this.#request<void>((callback) => this.#client.SendClientMessage(this.#root, id, state, 32, [ADD, vert, horz, SOURCE_PAGER, 0], callback))
    await this.#until(async () => {
      const states = this.#windows(await this.#property(id, state, ATOM.ATOM))
      return states.includes(vert) && states.includes(horz)
    })
  }

  /**
   * Asks the window manager to close the window (_NET_CLOSE_WINDOW, as a pager's close button:
   * it sends WM_DELETE_WINDOW, so the application may still ask to save) and waits, bounded,
   * until it has left the client list; one that stays (a save prompt) is given up on quietly.
   */
  async closeWindow (id: number): Promise<void> {
    await this.#request<void>((callback) => this.#client.SendClientMessage(this.#root, id, this.#atoms._NET_CLOSE_WINDOW, 32, [0, SOURCE_PAGER, 0, 0, 0], callback))
    await this.#until(async () => !this.#windows(await this.#property(this.#root, this.#atoms._NET_CLIENT_LIST, ATOM.WINDOW)).includes(id))
  }

  /**
   * Asks the window manager to move/resize the client area (StaticGravity: x, y are the
   * content's own corner) and waits until it is as asked, or has settled otherwise: an
   * application may round its size to its size steps, or refuse.
   */
  async moveResize (id: number, geometry: Partial<Rect>): Promise<void> {
    const placed = await this.#moveResizeOnce(id, geometry)
    // Window managers differ on where StaticGravity puts the content (openbox: one border
    // width off). Measured once, corrected once.
    const dx = geometry.x === undefined ? 0 : placed.x - geometry.x
    const dy = geometry.y === undefined ? 0 : placed.y - geometry.y
    if (dx === 0 && dy === 0) return
    await this.#moveResizeOnce(id, {
      ...(geometry.x !== undefined && { x: geometry.x - dx }),
      ...(geometry.y !== undefined && { y: geometry.y - dy }),
    }, geometry)
  }

  async #moveResizeOnce (id: number, request: Partial<Rect>, wanted: Partial<Rect> = request): Promise<Rect> {
    let flags = STATIC_GRAVITY | (SOURCE_PAGER << 12)
    for (const field of FIELDS) if (request[field] !== undefined) flags |= MOVERESIZE_FLAGS[field]
    const data = [flags, request.x ?? 0, request.y ?? 0, request.width ?? 0, request.height ?? 0].map((value) => value >>> 0)
    const before = JSON.stringify(await this.geometry(id))
    await this.#request<void>((callback) => this.#client.SendClientMessage(this.#root, id, this.#atoms._NET_MOVERESIZE_WINDOW, 32, data, callback))
    let last = before
    let changedAt = performance.now()
    let now = await this.geometry(id)
    await this.#until(async () => {
      now = await this.geometry(id)
      if (FIELDS.every((field) => wanted[field] === undefined || wanted[field] === now[field])) return true
      const key = JSON.stringify(now)
      if (key !== last) {
        last = key
        changedAt = performance.now()
        return false
      }
      // Changed and then still: done as far as the window manager goes. Never changed: it
      // refused, or the application's size steps round to the old size; give it longer.
      return performance.now() - changedAt >= (last === before ? STABLE_MS * 5 : STABLE_MS)
    })
    return now
  }

  /** The client area (without the frame) in root coordinates. */
  async geometry (id: number): Promise<Rect> {
    const [origin, size] = await Promise.all([
      this.#request<{ destX: number, destY: number }>((callback) => this.#client.TranslateCoordinates(id, this.#root, 0, 0, callback)),
      this.#request<{ width: number, height: number }>((callback) => this.#client.GetGeometry(id, callback)),
    ])
    return { x: origin.destX, y: origin.destY, width: size.width, height: size.height }
  }

  async #state (id: number, active: number | undefined): Promise<WindowState> {
    const [netName, name, wmClass, pid, rect] = await Promise.all([
      this.#property(id, this.#atoms._NET_WM_NAME, this.#atoms.UTF8_STRING),
      this.#property(id, ATOM.WM_NAME, 0),
      this.#property(id, ATOM.WM_CLASS, ATOM.STRING),
      this.#property(id, this.#atoms._NET_WM_PID, ATOM.CARDINAL),
      this.geometry(id),
    ])
    const [instance = '', className = ''] = wmClass.data.length ? latin1(wmClass.data).split('\0') : []
    return {
      id,
      title: netName.data.length ? netName.data.toString('utf8') : this.#text(name),
      instance,
      class: className,
      pid: pid.data.length >= 4 ? pid.data.readUInt32LE(0) : null,
      rect,
      focused: id === active,
    }
  }

  /**
   * The windows, topmost first, in the order X itself stacks their frames (the root's
   * children, bottom to top). Not _NET_CLIENT_LIST_STACKING: jwm writes it top to bottom,
   * against EWMH. A window closed meanwhile sorts last; list() then drops it.
   */
  async #stacked (ids: number[]): Promise<number[]> {
    const order = (await this.#request<{ children: number[] }>((callback) => this.#client.QueryTree(this.#root, callback))).children
    const level = new Map(order.map((child, index) => [child, index]))
    const topLevel = async (id: number): Promise<number> => {
      let window = id
      for (let depth = 0; depth < 8 && !level.has(window); depth++) {
        const parent = (await this.#request<{ parent: number }>((callback) => this.#client.QueryTree(window, callback))).parent
        if (parent === this.#root || parent === 0) break
        window = parent
      }
      return level.get(window) ?? -1
    }
    const levels = await Promise.all(ids.map((id) => topLevel(id).catch(() => -1)))
    return ids.map((id, i) => ({ id, level: levels[i]! })).sort((a, b) => b.level - a.level).map(({ id }) => id)
  }

  /** The focus is on the window or inside it (applications may focus a child). */
  async #hasFocus (id: number): Promise<boolean> {
    let focus = (await this.#request<{ focus: number }>((callback) => this.#client.GetInputFocus(callback))).focus
    for (let depth = 0; depth < 8 && focus > 1 && focus !== this.#root; depth++) {
      if (focus === id) return true
      focus = (await this.#request<{ parent: number }>((callback) => this.#client.QueryTree(focus, callback))).parent
    }
    return false
  }

  #text (property: GetPropertyReply): string {
    return property.type === this.#atoms.UTF8_STRING ? property.data.toString('utf8') : latin1(property.data)
  }

  #windows (property: GetPropertyReply): number[] {
    if (property.format !== 32) return []
    return Array.from({ length: property.data.length / 4 }, (_, i) => property.data.readUInt32LE(i * 4))
  }

  #property (window: number, atom: number, type: number): Promise<GetPropertyReply> {
    return this.#request((callback) => this.#client.GetProperty(0, window, atom, type, 0, MAX_PROPERTY_LONGS, callback))
  }

  async #until (check: () => Promise<boolean>): Promise<boolean> {
    const deadline = performance.now() + SETTLE_TIMEOUT_MS
    for (;;) {
      if (await check()) return true
      if (performance.now() >= deadline) return false
      await delay(POLL_MS)
    }
  }

  /** One request: its reply, its X error, or the connection's failure, whichever comes first. */
  #request<T> (send: (callback: (error: Error | null, reply: T) => boolean) => void): Promise<T> {
    if (this.#failure) return Promise.reject(new Error(`lost the X connection to ${this.display}: ${this.#failure.message}`))
    let timer: NodeJS.Timeout | undefined
    const reply = new Promise<T>((resolve, reject) => {
      send((error, value) => {
        if (error) reject(error)
        else resolve(value)
        return true
      })
      timer = setTimeout(() => reject(new Error(`the X server on ${this.display} did not answer within ${REQUEST_TIMEOUT_MS} ms`)), REQUEST_TIMEOUT_MS)
    })
    return Promise.race([reply, this.#lost]).finally(() => clearTimeout(timer))
  }

  #fail (error: Error): void {
    if (this.#failure) return
    this.#failure = error
    this.#lose(new Error(`lost the X connection to ${this.display}: ${error.message}`))
  }
}

const latin1 = (data: Buffer) => data.toString('latin1')
