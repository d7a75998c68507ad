/**
 * The files API's work on disk, under the home directory only. Every name is looked up through
 * a directory held open (dir-handle.ts), so a program on the desktop swapping a directory for a
 * link while a request runs can make it fail, never make it act outside the home. Uploads
 * stream into a temporary file beside their target and are renamed onto it once complete, so
 * nobody ever sees half a file, and a cut-off upload leaves none. Downloads and uploads are
 * streams: a large file is never held in memory.
 */
import { constants, createReadStream, createWriteStream, type Stats } from 'node:fs'
import { lstat, mkdir, open, realpath, rename, rmdir, stat, unlink, type FileHandle } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import mime from 'mime'
import { DesktopUnavailable, DiskFull, InvalidPath, PathConflict, PathForbidden, TooLarge } from '../errors/errors.ts'
import { bytesUnder, changed, errnoOf, nothingAt, READ_FILE, walking, type Leaf, type Owner, type Walk } from './dir-handle.ts'
import { components } from './paths.ts'
import { Tally } from './tally.ts'

export interface FileStoreOptions {
  /** The desktop's home directory. */
  home: string
  /** Largest file one upload may write, bytes. */
  maxFileSize: number
  /** Most bytes the regular files under the home may hold together for an upload to be admitted. */
  maxTotal: number
}

export type EntryKind = 'file' | 'directory' | 'symlink' | 'other'

export interface Entry {
  name: string
  kind: EntryKind
  size: number
  modified: string
}

/** Most entries one listing returns; a directory with more is listed in part (`truncated`). */
export const MAX_LISTING = 10_000

/** Bytes of the target's name kept in its temporary file's name (`.<name>.<12 hex>.upload` stays within NAME_MAX). */
const TEMPORARY_NAME_BYTES = 200

const kindOf = (info: Stats): EntryKind => info.isFile() ? 'file' : info.isDirectory() ? 'directory' : info.isSymbolicLink() ? 'symlink' : 'other'

interface Home { real: string, uid: number, gid: number }

export class FileStore {
  readonly #options: FileStoreOptions
  #home?: Promise<Home>
  readonly #tally: Tally
  /** Temporary files of uploads under way, as `<dev>:<ino>/<name>` of their directory: reserved, so never counted from the disk. */
  readonly #temporaries = new Set<string>()

  constructor (options: FileStoreOptions) {
    this.#options = options
    this.#tally = new Tally(options.maxTotal, async () =>
      bytesUnder((await this.#homeInfo()).real, (dir, name) => this.#temporaries.has(`${dir.dev}:${dir.ino}/${name}`)))
  }

  get limits (): { maxFileSize: number, maxTotal: number } {
    return { maxFileSize: this.#options.maxFileSize, maxTotal: this.#options.maxTotal }
  }

  /** The home's real path and owner, read at first use (read again after a failure: the home may appear later). */
  #homeInfo (): Promise<Home> {
    this.#home ??= (async () => {
      const real = await realpath(this.#options.home).catch(async (error: unknown) => {
        if (errnoOf(error) !== 'ENOENT') throw error
        // A home named but not there yet (`--files --home ~/desktop`) is made, the server's
        // user's own and private, as the full desktop's session makes it.
        await mkdir(this.#options.home, { recursive: true, mode: 0o700 })
        return realpath(this.#options.home)
      })
      const info = await stat(real)
      return { real, uid: info.uid, gid: info.gid }
    })().catch((error: unknown) => {
      this.#home = undefined
      throw new DesktopUnavailable(`the desktop's home directory ${this.#options.home} cannot be opened (${errnoOf(error) ?? String(error)}): /files has nothing to serve until it can`)
    })
    return this.#home
  }

  /** A walk from the home for the request on `shown`; what the kernel refuses becomes a clear 4xx (or 507). */
  async #walk<T> (shown: string, work: (walk: Walk, home: Home) => Promise<T>): Promise<T> {
    const home = await this.#homeInfo()
    try {
      return await walking(home.real, (walk) => work(walk, home))
    } catch (error) {
      throw refusal(error, shown)
    }
  }

  /** Runs `work` on what `path` names (links followed while they stay inside), or answers 404. */
  async #existing<T> (path: string, work: (leaf: Leaf & { stats: Stats }, shown: string, home: Home, walk: Walk) => Promise<T>): Promise<T> {
    const parts = components(path)
    const shown = parts.join('/')
    return this.#walk(shown, async (walk, home) => {
      const leaf = await walk.leaf(parts, { follow: true })
      if (!leaf?.stats) throw nothingAt(shown)
      return work(leaf as Leaf & { stats: Stats }, shown, home, walk)
    })
  }

  /**
   * Writes `body` to `path` (parents created), replacing what is there. `declared` is the
   * Content-Length, when the client sent one: an upload that cannot fit is refused before a byte is read.
   */
  async put (path: string, body: Readable, declared?: number): Promise<{ path: string, size: number }> {
    const parts = components(path)
    const shown = parts.join('/')
    if (parts.length === 0) throw new PathForbidden('the home directory itself cannot be replaced by a file: name a file under it')
    const { maxFileSize } = this.#options
    const overFileSize = () => new TooLarge(`the file is over the limit of ${maxFileSize} bytes (--max-file-size)`)
    if (declared !== undefined && declared > maxFileSize) throw overFileSize()
    return this.#walk(shown, async (walk, home) => {
      const owner = this.#owner(home)
      const leaf = (await walk.leaf(parts, { follow: true, create: { ...(owner && { owner }) } }))!
      if (leaf.name === undefined || leaf.stats?.isDirectory()) throw new PathConflict(`'${shown}' is a directory: an upload needs a file name`)
      if (leaf.stats && !leaf.stats.isFile()) throw new PathConflict(`'${shown}' is not a regular file`)
      const name = leaf.name
      const reservation = await this.#tally.admit(declared ?? 0, leaf.stats?.size ?? 0)
      const directory = await leaf.dir.handle.stat()
      const temporary = `.${truncated(name, TEMPORARY_NAME_BYTES)}.${randomBytes(6).toString('hex')}.upload`
      const key = `${directory.dev}:${directory.ino}/${temporary}`
      this.#temporaries.add(key)
      let handle: FileHandle | undefined
      let written = 0
      try {
        // O_EXCL and O_NOFOLLOW: the temporary name is ours alone, and never a link planted there.
        handle = await open(leaf.dir.at(temporary), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644)
        if (owner) await handle.chown(owner.uid, owner.gid)
        const count = new Transform({
          transform: (chunk: Buffer, _encoding, done) => {
            written += chunk.length
            if (written > maxFileSize) return done(overFileSize())
            if (declared !== undefined) return done(null, chunk)
            // Without a declared length, the reservation grows with what arrives.
            this.#tally.grow(reservation, chunk.length).then(() => done(null, chunk), done)
          },
        })
        await pipeline(body, count, createWriteStream('', { fd: handle, flush: true }))
        await this.#tally.turn(async () => {
          const replaced = await lstat(leaf.dir.at(name)).catch(() => undefined)
          await rename(leaf.dir.at(temporary), leaf.dir.at(name))
          this.#temporaries.delete(key)
          this.#tally.commit(reservation, written, replaced?.isFile() ? replaced.size : 0)
        })
      } catch (error) {
        if (handle) await unlink(leaf.dir.at(temporary)).catch(() => {})
        throw error
      } finally {
        this.#tally.release(reservation)
        this.#temporaries.delete(key)
        await handle?.close().catch(() => {})
      }
      return { path: shown, size: written }
    })
  }

  /** Opens a regular file for download. */
  async get (path: string): Promise<{ stream: Readable, size: number, type: string, name: string }> {
    return this.#existing(path, async (leaf, shown, home) => {
      const directory = () => new PathConflict(`'${shown}' is a directory: list it with GET /files?path=${encodeURIComponent(shown)}`)
      if (leaf.name === undefined || leaf.stats.isDirectory()) throw directory()
      if (!leaf.stats.isFile()) throw new PathConflict(`'${shown}' is not a regular file`)
      // Opened without following, without blocking; then what was opened is what is checked.
      const handle = await open(leaf.dir.at(leaf.name), READ_FILE)
      const info = await handle.stat().catch(async (error: unknown) => { await handle.close(); throw error })
      if (!info.isFile() || !this.#readable(info, home)) {
        await handle.close()
        if (!info.isFile()) throw info.isDirectory() ? directory() : new PathConflict(`'${shown}' is not a regular file`)
        throw unreadable(shown)
      }
      return {
        stream: exactly(createReadStream('', { fd: handle }), info.size, shown),
        size: info.size,
        type: mime.getType(leaf.name) ?? 'application/octet-stream',
        name: leaf.name,
      }
    })
  }

  /** A directory's entries, sorted by name; links are reported as links, not followed. */
  async list (path: string): Promise<{ path: string, entries: Entry[], truncated: boolean }> {
    return this.#existing(path, async (leaf, shown, home, walk) => {
      if (!leaf.stats.isDirectory()) throw new PathConflict(`'${shown}' is a file, not a directory: download it with GET /files/${shown}`)
      if (leaf.name !== undefined) await walk.enter([leaf.name])
      if (!this.#readable(await walk.top.handle.stat(), home)) throw unreadable(shown)
      const names = (await walk.names()).sort()
      const entries: Entry[] = []
      for (const name of names.slice(0, MAX_LISTING)) {
        // An entry gone since readdir is simply not listed.
        const info = await lstat(walk.top.at(name)).catch(() => undefined)
        if (info) entries.push({ name, kind: kindOf(info), size: info.size, modified: info.mtime.toISOString() })
      }
      return { path: shown, entries, truncated: names.length > MAX_LISTING }
    })
  }

  /** Deletes a file or a link (never what it points to), or an empty directory. */
  async remove (path: string): Promise<{ path: string, kind: EntryKind }> {
    const parts = components(path)
    const shown = parts.join('/')
    const name = parts.at(-1)
    if (name === undefined) throw new PathForbidden('the home directory itself cannot be deleted: name something under it')
    return this.#walk(shown, async (walk) => {
      // The directories on the way are followed like any path; the last name never is.
      if (!await walk.enter(parts.slice(0, -1))) throw nothingAt(shown)
      const dir = walk.top
      return this.#tally.turn(async () => {
        const info = await lstat(dir.at(name)).catch(() => undefined)
        if (!info) throw nothingAt(shown)
        if (info.isDirectory()) {
          await rmdir(dir.at(name)).catch((error: unknown) => {
            const code = errnoOf(error)
            if (code === 'ENOTEMPTY' || code === 'EEXIST') throw new PathConflict(`'${shown}' is a directory that is not empty: delete what it holds first`)
            throw error
          })
        } else {
          await unlink(dir.at(name))
          if (info.isFile()) this.#tally.removed(info.size)
        }
        return { path: shown, kind: kindOf(info) }
      })
    })
  }

  /**
   * Whether the home's owner could read what was opened, when the server reads as root on its
   * behalf: a file another user (root) keeps to itself, or a hard link to one, is not served
   * through their home. By mode bits (owner, then group, then others), as the kernel decides.
   */
  #readable (info: Stats, home: Home): boolean {
    if (!this.#owner(home)) return true
    const bits = info.uid === home.uid ? 0o400 : info.gid === home.gid ? 0o040 : 0o004
    return (info.mode & bits) !== 0
  }

  /** Files belong to the desktop's user, the home's owner; only root can give them away. */
  #owner (home: Home): Owner | undefined {
    return process.getuid?.() === 0 && home.uid !== 0 ? { uid: home.uid, gid: home.gid } : undefined
  }
}

/**
 * The first `size` bytes of `file`, the Content-Length already promised: a file that grows
 * while it is sent is cut there, one that shrinks fails the stream (the connection is closed),
 * so the answer never says one length and sends another.
 */
function exactly (file: Readable, size: number, shown: string): Readable {
  let sent = 0
  const cut = new Transform({
    transform (chunk: Buffer, _encoding, done) {
      const part = chunk.subarray(0, Math.max(0, size - sent))
      sent += part.length
      done(null, part.length > 0 ? part : undefined)
    },
    flush (done) {
      done(sent < size ? new Error(`'${shown}' shrank while it was being downloaded`) : null)
    },
  })
  pipeline(file, cut).catch(() => {})
  return cut
}

const unreadable = (shown: string) => new PathForbidden(`'${shown}' is not readable by the owner of the desktop's home directory, so it is not served`)

/** At most `bytes` bytes of `name`, cut between UTF-8 characters. */
function truncated (name: string, bytes: number): string {
  const buffer = Buffer.from(name)
  if (buffer.length <= bytes) return name
  let end = bytes
  while (end > 0 && (buffer[end]! & 0xc0) === 0x80) end--
  return buffer.subarray(0, end).toString()
}

/** What the kernel answered, as the refusal a client can act on; errors already refusals pass through. */
export function refusal (error: unknown, shown: string): unknown {
  if (typeof (error as { statusCode?: unknown }).statusCode === 'number') return error
  switch (errnoOf(error)) {
    case 'ENOSPC':
    case 'EDQUOT':
      return new DiskFull(`the disk holding the desktop's home directory is full (${errnoOf(error)}): '${shown}' was not written, and any file that was there is unchanged; free some space and try again`)
    case 'ENAMETOOLONG':
      return new InvalidPath(`'${shown.slice(0, 64)}…' is too long for the file system (ENAMETOOLONG)`)
    case 'EACCES':
    case 'EPERM':
      return new PathForbidden(`the server's user may not do this at '${shown}' (permission denied)`)
    case 'EROFS':
      return new PathForbidden(`'${shown}' is on a read-only file system`)
    // Met only when something changed between two steps: what is missing for good is answered 404 before.
    case 'ELOOP':
    case 'ENOTDIR':
    case 'EISDIR':
    case 'ENOENT':
      return changed(shown)
    default:
      return error
  }
}
