/**
 * Every name under the desktop's home is looked up in a directory held open, one component at
 * a time, never by a path walked again from the root. A program on the desktop may swap any
 * directory under the home for a symbolic link (to /etc, to a root-only file) at any moment;
 * checking a path and then opening, renaming or unlinking it by name again would follow the
 * link planted in between. Here nothing is walked twice: each step opens the next directory
 * relative to the one already held, with O_NOFOLLOW (a link is never entered by the kernel:
 * it is read with readlink and followed here, only while it stays inside the home) and
 * O_NONBLOCK (a FIFO swapped in never blocks a thread; anything but a regular file or a
 * directory is refused after fstat).
 *
 * Node has no openat(2). On Linux, `/proc/self/fd/<fd>/<name>` is its equivalent: the kernel
 * resolves the magic link `/proc/self/fd/<fd>` to the very directory the descriptor holds
 * (its dentry and mount, whatever its name is now, even renamed or moved), then looks up
 * `<name>` in it; O_NOFOLLOW still applies to `<name>`, the last component. So open, mkdir,
 * lstat, readlink, rename and unlink on such paths act relative to the held directory, and
 * fchown and fstat act on what was opened. /proc must be mounted (it is in every container
 * image and on every Linux host); `openHome` checks it once and refuses with a clear message.
 */
import { constants, type Stats } from 'node:fs'
import { lstat, mkdir, open, readdir, readlink, type FileHandle } from 'node:fs/promises'
import { FileNotFound, PathConflict, PathForbidden } from '../errors/errors.ts'

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants

/** Flags of every open of a directory under the home. */
const DIRECTORY = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY
/** Flags of every open of a file to read: never a link, never blocked by a FIFO or device, never a controlling terminal. */
export const READ_FILE = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY

/** Links followed in one walk before it is called a loop (Linux's own limit). */
export const MAX_LINKS = 40
/** Times one step is tried again when what it met changed under it (a directory swapped for a link and back). */
const MAX_RETRIES = 8

/** Directories below the home a walk keeps open at once; those above are let go, and opened again only if climbed back to. */
export const WINDOW = 16

/** One directory on a walk's way down: its name in its parent, and its descriptor while held. */
interface Level { name: string, dir: Dir | undefined }

/** A directory held open; names in it are reached through its descriptor. */
export class Dir {
  constructor (readonly handle: FileHandle) {}
  /** A path the kernel resolves to `name` inside this very directory. */
  at (name: string): string { return `/proc/self/fd/${this.handle.fd}/${name}` }
  /** A path the kernel resolves to this very directory. */
  get self (): string { return `/proc/self/fd/${this.handle.fd}` }
}

/** Where a path ends: a name in a held directory (`name` undefined: the directory itself), with its lstat when it exists. */
export interface Leaf {
  dir: Dir
  name: string | undefined
  stats: Stats | undefined
}

export const errnoOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code

async function quietly<T> (promise: Promise<T>, ...codes: string[]): Promise<T | undefined> {
  try {
    return await promise
  } catch (error) {
    if (codes.includes(errnoOf(error) ?? '')) return undefined
    throw error
  }
}

/** Opens a directory by a held-directory path; undefined with the errno when it is not one to enter. */
async function openDirectory (path: string): Promise<FileHandle | string> {
  try {
    return await open(path, DIRECTORY)
  } catch (error) {
    const code = errnoOf(error)
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') return code
    throw error
  }
}

let procChecked = false

/** Who new directories are given to (the home's owner, when the server runs as root and the home is another user's). */
export interface Owner { uid: number, gid: number }

/**
 * One walk under the home: the stack of directories from the home down to where it is, every
 * descriptor it opened (closed by `close`, on every path), and the links followed so far.
 */
export class Walk {
  /**
   * The directories from the home down to where the walk is, by name; only the home and the
   * last WINDOW hold a descriptor (a path of 2048 components, or a link to one, must not hold
   * 2048), the others are opened again from the home, one held name at a time, when a `..` in
   * a link's target climbs back to them.
   */
  readonly #stack: Level[]
  #links = 0
  /** The home's real path: an absolute link target under it is followed from the home. */
  readonly #home: string

  private constructor (home: string, handle: FileHandle) {
    this.#home = home
    this.#stack = [{ name: '', dir: new Dir(handle) }]
  }

  /** Opens the home (its real path, which the operator chose: the only name walked from the root). */
  static async open (home: string): Promise<Walk> {
    if (!procChecked) {
      await lstat('/proc/self/fd').catch(() => {
        throw new Error('/proc is not mounted: /files needs /proc/self/fd to act inside directories it holds open (mount proc at /proc)')
      })
      procChecked = true
    }
    return new Walk(home, await open(home, DIRECTORY))
  }

  get home (): Dir { return this.#stack[0]!.dir! }
  /** The directory the walk is in (always held: it is the newest level, or opened again when climbed back to). */
  get top (): Dir { return this.#stack.at(-1)!.dir! }

  async close (): Promise<void> {
    await Promise.all(this.#stack.splice(0).map((level) => level.dir?.handle.close().catch(() => {})))
  }

  async #push (name: string, handle: FileHandle): Promise<void> {
    this.#stack.push({ name, dir: new Dir(handle) })
    const old = this.#stack.length - 1 - WINDOW
    const level = old > 0 ? this.#stack[old] : undefined
    if (level?.dir) {
      const { handle } = level.dir
      level.dir = undefined
      await handle.close()
    }
  }

  /** Back up to the parent; its descriptor opened again from the home when it was let go. */
  async #pop (where: string): Promise<void> {
    if (this.#stack.length === 1) throw new PathForbidden(`'${where}' is a symbolic link leading out of the desktop's home directory`)
    await this.#stack.pop()!.dir?.handle.close()
    if (this.#stack.at(-1)!.dir) return
    // Each held name again, from the home: never a link (O_NOFOLLOW), so never out of it.
    let dir = this.home
    for (const [index, level] of this.#stack.entries()) {
      if (index === 0) continue
      if (!level.dir) {
        const opened = await openDirectory(dir.at(level.name))
        if (typeof opened === 'string') throw changed(where)
        level.dir = new Dir(opened)
      }
      dir = level.dir
    }
  }

  /** Back to the home alone (an absolute link's target starts there). */
  async #reset (): Promise<void> {
    await Promise.all(this.#stack.splice(1).map((level) => level.dir?.handle.close()))
  }

  /**
   * Enters the directories `parts`, following links while they stay inside the home. With
   * `create`, missing ones are made (mode 0755) and given to `create.owner`; without, the walk
   * stops at the first missing one: false.
   */
  async enter (parts: string[], create?: { owner?: Owner }): Promise<boolean> {
    for (const [index, part] of parts.entries()) {
      if (!await this.#into(part, parts.slice(0, index + 1).join('/'), create, false)) return false
    }
    return true
  }

  /**
   * Where `parts` ends: the directories before the last entered (made, with `create`), the
   * last name looked at with lstat and, with `follow`, a link there followed while it stays
   * inside. Undefined when a directory on the way is missing.
   */
  async leaf (parts: string[], { follow, create }: { follow: boolean, create?: { owner?: Owner } }): Promise<Leaf | undefined> {
    const name = parts.at(-1)
    if (name === undefined) return { dir: this.top, name: undefined, stats: await this.top.handle.stat() }
    if (!await this.enter(parts.slice(0, -1), create)) return undefined
    return this.#last(name, parts.join('/'), follow)
  }

  /** Names in the directory the walk is in. */
  async names (): Promise<string[]> {
    return readdir(this.top.self)
  }

  async #last (name: string, where: string, follow: boolean): Promise<Leaf> {
    if (name === '..' || name === '.') {
      await this.#into(name, where, undefined, true)
      return { dir: this.top, name: undefined, stats: await this.top.handle.stat() }
    }
    const stats = await quietly(lstat(this.top.at(name)), 'ENOENT')
    if (!follow || !stats?.isSymbolicLink()) return { dir: this.top, name, stats }
    const target = await this.#target(name, where)
    // The link's own directory is where a relative target starts; an absolute one starts at the home.
    const parts = target.split('/').filter((part) => part !== '')
    const last = parts.pop()
    for (const part of parts) await this.#into(part, where, undefined, true)
    if (last === undefined) return { dir: this.top, name: undefined, stats: await this.top.handle.stat() }
    const leaf = await this.#last(last, where, true)
    if (!leaf.stats) throw new PathForbidden(`'${where}' is a symbolic link to nothing: it is not followed`)
    return leaf
  }

  /** A link's target, counted; an absolute one leaves the walk at the home, or is refused when it points out. */
  async #target (name: string, where: string): Promise<string> {
    if (++this.#links > MAX_LINKS) throw new PathConflict(`'${where}' leads through more than ${MAX_LINKS} symbolic links (a loop): it is not followed`)
    const target = await readlink(this.top.at(name)).catch((error: unknown) => {
      // No longer a link (EINVAL), or gone: swapped since it was looked at.
      if (errnoOf(error) === 'EINVAL' || errnoOf(error) === 'ENOENT') throw changed(where)
      throw error
    })
    if (!target.startsWith('/')) return target
    if (target !== this.#home && !target.startsWith(`${this.#home}/`)) throw new PathForbidden(`'${where}' is a symbolic link leading out of the desktop's home directory`)
    await this.#reset()
    return target.slice(this.#home.length)
  }

  /** One step down (or up, `..`, inside a link's target only), into directory `name` of the top. */
  async #into (name: string, where: string, create: { owner?: Owner } | undefined, inLink: boolean): Promise<boolean> {
    if (name === '' || name === '.') return true
    if (name === '..') {
      await this.#pop(where)
      return true
    }
    for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
      const top = this.top
      const opened = await openDirectory(top.at(name))
      if (typeof opened !== 'string') {
        await this.#push(name, opened)
        return true
      }
      if (opened === 'ENOENT') {
        if (inLink) throw new PathForbidden(`'${where}' is a symbolic link to nothing: it is not followed`)
        if (!create) return false
        await this.#make(top, name, create.owner)
        continue
      }
      // ELOOP or ENOTDIR: a link, a file, or something else; what it is now decides.
      const stats = await quietly(lstat(top.at(name)), 'ENOENT')
      if (!stats || stats.isDirectory()) continue
      if (!stats.isSymbolicLink()) {
        throw new PathConflict(`'${where}' is ${stats.isFile() ? 'a file, not a directory' : 'not a directory'}: nothing can be under it`)
      }
      const target = await this.#target(name, where)
      for (const part of target.split('/')) await this.#into(part, where, undefined, true)
      return true
    }
    throw changed(where)
  }

  /**
   * Makes directory `name` in `dir` and, when it is to be given away, opens what is there now
   * (never a link: O_NOFOLLOW, O_DIRECTORY) and gives that descriptor's directory away, only if
   * it is still the server's own: a name swapped for a link or another's file in between is
   * never followed, and never changes owner.
   */
  async #make (dir: Dir, name: string, owner: Owner | undefined): Promise<void> {
    const made = await quietly(mkdir(dir.at(name), { mode: 0o755 }).then(() => true), 'EEXIST')
    if (!made || !owner) return
    const opened = await openDirectory(dir.at(name))
    if (typeof opened === 'string') return
    try {
      const stats = await opened.stat()
      if (stats.uid === process.getuid?.()) await opened.chown(owner.uid, owner.gid)
    } finally {
      await opened.close()
    }
  }
}

/** Runs `work` on a walk from the home, and closes every descriptor the walk opened, whatever happens. */
export async function walking<T> (home: string, work: (walk: Walk) => Promise<T>): Promise<T> {
  const walk = await Walk.open(home)
  try {
    return await work(walk)
  } finally {
    await walk.close()
  }
}

/** Directories deeper than this under the home are not counted (each level holds a descriptor while it is). */
export const MAX_COUNT_DEPTH = 128

/**
 * The bytes the regular files under the home hold together: each directory entered through
 * its parent's descriptor, links never followed, other file systems mounted inside not
 * counted. `skip(dir, name)` leaves out an entry (an upload's temporary file, already reserved).
 */
export async function bytesUnder (home: string, skip: (dir: Stats, name: string) => boolean): Promise<number> {
  const walk = await Walk.open(home)
  try {
    const root = await walk.home.handle.stat()
    const count = async (dir: Dir, info: Stats, depth: number): Promise<number> => {
      let total = 0
      for (const name of await quietly(readdir(dir.self), 'ENOENT', 'EACCES') ?? []) {
        if (skip(info, name)) continue
        const stats = await quietly(lstat(dir.at(name)), 'ENOENT', 'EACCES')
        if (stats?.isFile()) total += stats.size
        if (!stats?.isDirectory() || stats.dev !== root.dev || depth >= MAX_COUNT_DEPTH) continue
        const opened = await quietly(openDirectory(dir.at(name)), 'EACCES')
        if (opened === undefined || typeof opened === 'string') continue
        try {
          total += await count(new Dir(opened), await opened.stat(), depth + 1)
        } finally {
          await opened.close()
        }
      }
      return total
    }
    return await count(walk.home, root, 0)
  } finally {
    await walk.close()
  }
}

/** The 409 for a path that changed under a request (a directory, file or link swapped in, or removed, while it ran). */
export const changed = (shown: string) => new PathConflict(`'${shown}' changed while the request ran (something under it was swapped or removed): try again`)

/** The 404 for a path with nothing at it. */
export const nothingAt = (shown: string) => new FileNotFound(`nothing at '${shown}' under the desktop's home directory`)
