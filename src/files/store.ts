/**
 * The files API's work on disk, under the home directory only (paths.ts decides where a path
 * lands). Uploads stream into a temporary file beside their target and are renamed onto it
 * once complete, so nobody ever sees half a file, and a cut-off upload leaves none. Downloads
 * and uploads are streams: a large file is never held in memory.
 */
import { constants, createReadStream, createWriteStream, statSync, type ReadStream } from 'node:fs'
import { chown, lstat, mkdir, open, readdir, realpath, rename, rmdir, stat, unlink } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import { basename, dirname, join } from 'node:path'
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import mime from 'mime'
import { FileNotFound, PathConflict, PathForbidden, TooLarge } from '../errors/errors.ts'
import { components, resolveUnder, type Resolved } from './paths.ts'

export interface FileStoreOptions {
  /** The desktop's home directory. */
  home: string
  /** Largest file one upload may write, bytes. */
  maxFileSize: number
  /** Most bytes the files uploaded here and still present may hold together. */
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

export class FileStore {
  readonly #options: FileStoreOptions
  #home?: Promise<{ real: string, uid: number, gid: number }>
  /** What uploads wrote and is still there: real path → size (what --max-files-total counts). */
  readonly #uploaded = new Map<string, number>()
  /** Bytes written so far by uploads still running. */
  #inFlight = 0

  constructor (options: FileStoreOptions) {
    this.#options = options
  }

  get limits (): { maxFileSize: number, maxTotal: number } {
    return { maxFileSize: this.#options.maxFileSize, maxTotal: this.#options.maxTotal }
  }

  /** The home's real path and owner, read once (it must exist when the first request comes). */
  #homeInfo (): Promise<{ real: string, uid: number, gid: number }> {
    this.#home ??= (async () => {
      const real = await realpath(this.#options.home)
      const info = await stat(real)
      return { real, uid: info.uid, gid: info.gid }
    })()
    return this.#home
  }

  async #resolve (path: string): Promise<Resolved> {
    return resolveUnder((await this.#homeInfo()).real, path)
  }

  /**
   * Writes `body` to `path` (parents created), replacing what is there. `declared` is the
   * Content-Length, when the client sent one: an upload that cannot fit is refused before a byte is read.
   */
  async put (path: string, body: Readable, declared?: number): Promise<{ path: string, size: number }> {
    const home = await this.#homeInfo()
    const target = await this.#resolve(path)
    if (target.shown === '') throw new PathForbidden('the home directory itself cannot be replaced by a file: name a file under it')
    if (target.stats?.isDirectory()) throw new PathConflict(`'${target.shown}' is a directory: an upload needs a file name`)
    if (target.stats && !target.stats.isFile()) throw new PathConflict(`'${target.shown}' is not a regular file`)
    this.#prune()
    const { maxFileSize, maxTotal } = this.#options
    // What the others hold: done uploads but the one this replaces, and running ones but this (`written` so far).
    let written = 0
    const others = () => this.#used() - written - (this.#uploaded.get(target.real) ?? 0)
    if (declared !== undefined) this.#checkSize(declared, others())
    await this.#makeParents(dirname(target.real), home)
    const temporary = join(dirname(target.real), `.${basename(target.real).slice(0, 200)}.${randomBytes(6).toString('hex')}.upload`)
    // O_EXCL and O_NOFOLLOW: the temporary name is ours alone, and never a link planted there.
    const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644)
    try {
      if (this.#chowning(home)) await handle.chown(home.uid, home.gid)
      const count = new Transform({
        transform: (chunk: Buffer, _encoding, done) => {
          written += chunk.length
          this.#inFlight += chunk.length
          const rest = others()
          if (written > maxFileSize || rest + written > maxTotal) {
            done(this.#sizeError(written, rest))
            return
          }
          done(null, chunk)
        },
      })
      await pipeline(body, count, createWriteStream('', { fd: handle, flush: true }))
      await rename(temporary, target.real)
    } catch (error) {
      await unlink(temporary).catch(() => {})
      throw error
    } finally {
      this.#inFlight -= written
      await handle.close().catch(() => {})
    }
    this.#uploaded.set(target.real, written)
    return { path: target.shown, size: written }
  }

  /** Opens a regular file for download. */
  async get (path: string): Promise<{ stream: ReadStream, size: number, type: string, name: string }> {
    const target = await this.#existing(path)
    if (target.stats.isDirectory()) throw new PathConflict(`'${target.shown}' is a directory: list it with GET /files?path=${encodeURIComponent(target.shown)}`)
    if (!target.stats.isFile()) throw new PathConflict(`'${target.shown}' is not a regular file`)
    const handle = await open(target.real, constants.O_RDONLY | constants.O_NOFOLLOW)
    const size = (await handle.stat()).size
    return {
      stream: createReadStream('', { fd: handle }),
      size,
      type: mime.getType(target.real) ?? 'application/octet-stream',
      name: basename(target.real),
    }
  }

  /** A directory's entries, sorted by name; links are reported as links, not followed. */
  async list (path: string): Promise<{ path: string, entries: Entry[], truncated: boolean }> {
    const target = await this.#existing(path)
    if (!target.stats.isDirectory()) throw new PathConflict(`'${target.shown}' is a file, not a directory: download it with GET /files/${target.shown}`)
    const names = (await readdir(target.real)).sort()
    const entries: Entry[] = []
    for (const name of names.slice(0, MAX_LISTING)) {
      // An entry gone since readdir is simply not listed.
      const info = await lstat(join(target.real, name)).catch(() => undefined)
      if (!info) continue
      const kind: EntryKind = info.isFile() ? 'file' : info.isDirectory() ? 'directory' : info.isSymbolicLink() ? 'symlink' : 'other'
      entries.push({ name, kind, size: info.size, modified: info.mtime.toISOString() })
    }
    return { path: target.shown, entries, truncated: names.length > MAX_LISTING }
  }

  /** Deletes a file or a link (never what it points to), or an empty directory. */
  async remove (path: string): Promise<{ path: string, kind: EntryKind }> {
    const home = await this.#homeInfo()
    const parts = components(path)
    const name = parts.pop()
    if (name === undefined) throw new PathForbidden('the home directory itself cannot be deleted: name something under it')
    // The parent is resolved like any path; the last name is not followed: a link is deleted itself, never what it points to.
    const parent = await this.#resolve(parts.join('/'))
    if (!parent.stats) throw new FileNotFound(`nothing at '${[...parts, name].join('/')}' under the desktop's home directory`)
    const real = join(parent.real, name)
    const info = await lstat(real).catch(() => undefined)
    const shown = [...parts, name].join('/')
    if (!info) throw new FileNotFound(`nothing at '${shown}' under the desktop's home directory`)
    if (real === home.real) throw new PathForbidden('the home directory itself cannot be deleted')
    if (info.isDirectory()) {
      await rmdir(real).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOTEMPTY' || error.code === 'EEXIST') throw new PathConflict(`'${shown}' is a directory that is not empty: delete what it holds first`)
        throw error
      })
      return { path: shown, kind: 'directory' }
    }
    await unlink(real)
    this.#uploaded.delete(real)
    return { path: shown, kind: info.isSymbolicLink() ? 'symlink' : info.isFile() ? 'file' : 'other' }
  }

  async #existing (path: string): Promise<Resolved & { stats: NonNullable<Resolved['stats']> }> {
    const target = await this.#resolve(path)
    if (!target.stats) throw new FileNotFound(`nothing at '${target.shown}' under the desktop's home directory`)
    return target as Resolved & { stats: NonNullable<Resolved['stats']> }
  }

  #used (): number {
    let total = this.#inFlight
    for (const size of this.#uploaded.values()) total += size
    return total
  }

  /** Forgets uploads deleted or changed behind our back (by the desktop's applications). */
  #prune (): void {
    for (const [path, size] of this.#uploaded) {
      try {
        const info = statSyncQuiet(path)
        if (!info) this.#uploaded.delete(path)
        else if (info.size !== size) this.#uploaded.set(path, info.size)
      } catch { this.#uploaded.delete(path) }
    }
  }

  #checkSize (size: number, others: number): void {
    if (size > this.#options.maxFileSize || others + size > this.#options.maxTotal) throw this.#sizeError(size, others)
  }

  #sizeError (size: number, others: number): Error {
    const { maxFileSize, maxTotal } = this.#options
    if (size > maxFileSize) return new TooLarge(`the file is over the limit of ${maxFileSize} bytes (--max-file-size)`)
    return new TooLarge(`uploads still on disk hold ${others} bytes; ${size} more would pass the limit of ${maxTotal} bytes (--max-files-total): delete some first`)
  }

  /** Files belong to the desktop's user, the home's owner; only root can give them away. */
  #chowning (home: { uid: number }): boolean {
    return process.getuid?.() === 0 && home.uid !== 0
  }

  async #makeParents (directory: string, home: { real: string, uid: number, gid: number }): Promise<void> {
    const first = await mkdir(directory, { recursive: true, mode: 0o755 })
    if (first === undefined || !this.#chowning(home)) return
    // mkdir answers the first directory it made: it and those below it are new, and ours to hand over.
    for (let path = directory; path.length >= first.length; path = dirname(path)) await chown(path, home.uid, home.gid)
  }
}

function statSyncQuiet (path: string): { size: number } | undefined {
  try {
    return statSync(path)
  } catch {
    return undefined
  }
}
