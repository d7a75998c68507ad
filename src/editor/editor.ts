/**
 * The text editor over the desktop's home (Anthropic's text editor tool's contract: view,
 * create, str_replace, insert, undo_edit), through the same jail as /files: every path is
 * walked one name at a time through directories held open (src/files/dir-handle.ts), links
 * followed only while they stay inside, only regular files read or replaced. A file is
 * written to a temporary name beside it and renamed onto it, never half-written.
 */
import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { mkdir, open, realpath, rename, stat, unlink } from 'node:fs/promises'
import { DesktopUnavailable, InvalidAction, PathConflict, PathForbidden, TooLarge } from '../errors/errors.ts'
import { errnoOf, nothingAt, READ_FILE, walking, type Leaf, type Owner, type Walk } from '../files/dir-handle.ts'
import { refusal } from '../files/store.ts'
import { components } from '../files/paths.ts'

export interface EditRequest {
  command: 'view' | 'create' | 'str_replace' | 'insert' | 'undo_edit'
  path: string
  view_range?: number[] | undefined
  file_text?: string | undefined
  old_str?: string | undefined
  new_str?: string | undefined
  insert_line?: number | undefined
  insert_text?: string | undefined
}

/** Lines shown around an edit, as the reference tool shows them. */
const SNIPPET_LINES = 4
/** A view longer than this is cut, as the reference tool cuts it (MAX_RESPONSE_LEN), with its note. */
export const MAX_VIEW_CHARACTERS = 16_000
const CLIPPED = '<response clipped><NOTE>To save on context only part of this file has been shown to you. You should retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>'

/** Edits remembered per file for undo_edit. */
const HISTORY = 10

export class TextEditor {
  readonly #home_: string
  readonly #maxBytes: number
  readonly #history = new Map<string, string[]>()
  #real: Promise<string> | undefined

  constructor (options: { home: string, maxBytes: number }) {
    this.#home_ = options.home
    this.#maxBytes = options.maxBytes
  }

  /** The path's components under the home: relative to it, or absolute inside it. */
  parts (path: string): string[] {
    if (path.startsWith('/')) {
      const home = this.#home_.replace(/\/+$/, '')
      if (path !== home && !path.startsWith(`${home}/`)) throw new PathForbidden(`'${path}' is outside the desktop's home directory ${home}: the editor works only under it`)
      return components(path.slice(home.length).replace(/^\/+/, ''))
    }
    return components(path)
  }

  /** The home's real path (links in it are followed only while they stay under it), made 0700 when named but not there yet, as /files does. */
  #home (): Promise<string> {
    this.#real ??= realpath(this.#home_).catch(async (error: unknown) => {
      if (errnoOf(error) !== 'ENOENT') throw error
      await mkdir(this.#home_, { recursive: true, mode: 0o700 })
      return realpath(this.#home_)
    }).catch((error: unknown) => {
      this.#real = undefined
      throw new DesktopUnavailable(`the desktop's home directory ${this.#home_} cannot be opened (${errnoOf(error) ?? String(error)}): the editor has nothing to edit until it can`)
    })
    return this.#real
  }

  /** A walk from the home; what the kernel refuses becomes a clear 4xx (or 507), as on /files. */
  async #walking<T> (shown: string, work: (walk: Walk) => Promise<T>): Promise<T> {
    const home = await this.#home()
    try {
      return await walking(home, work)
    } catch (error) {
      throw refusal(error, shown)
    }
  }

  async run (request: EditRequest): Promise<string> {
    const parts = this.parts(request.path)
    const key = parts.join('/')
    const shown = request.path
    switch (request.command) {
      case 'view': {
        const viewed = await this.#view(parts, shown, request.view_range)
        return viewed.length > MAX_VIEW_CHARACTERS ? viewed.slice(0, MAX_VIEW_CHARACTERS) + CLIPPED : viewed
      }
      case 'create': {
        const text = need(request.file_text, 'file_text', 'create')
        const before = await this.#read(parts, shown).catch(() => undefined)
        await this.#write(parts, shown, text)
        if (before !== undefined) this.#remember(key, before)
        return `File created successfully at: ${shown}`
      }
      case 'str_replace': {
        const old = need(request.old_str, 'old_str', 'str_replace')
        const replacement = request.new_str ?? ''
        const text = await this.#read(parts, shown)
        const wanted = old
        const count = text.split(wanted).length - 1
        if (count === 0) throw new InvalidAction(`No replacement was performed, old_str \`${old}\` did not appear verbatim in ${shown}.`)
        if (count > 1) {
          const lines = text.split('\n').flatMap((line, index) => line.includes(wanted) ? [index + 1] : [])
          throw new InvalidAction(`No replacement was performed. Multiple occurrences of old_str \`${old}\` in lines ${JSON.stringify(lines)} (${count} matches). Please ensure it is unique`)
        }
        const at = text.indexOf(wanted)
        const edited = text.slice(0, at) + replacement + text.slice(at + wanted.length)
        await this.#write(parts, shown, edited)
        this.#remember(key, text)
        const line = text.slice(0, at).split('\n').length - 1
        const start = Math.max(0, line - SNIPPET_LINES)
        const end = line + SNIPPET_LINES + replacement.split('\n').length
        const snippet = edited.split('\n').slice(start, end + 1).join('\n')
        return `The file ${shown} has been edited. ${catN(snippet, `a snippet of ${shown}`, start + 1)}Review the changes and make sure they are as expected. Edit the file again if necessary.`
      }
      case 'insert': {
        const line = need(request.insert_line, 'insert_line', 'insert')
        const inserted = need(request.insert_text ?? request.new_str, 'insert_text', 'insert')
        const text = await this.#read(parts, shown)
        const lines = text.split('\n')
        if (!Number.isInteger(line) || line < 0 || line > lines.length) {
          throw new InvalidAction(`Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines of the file: [0, ${lines.length}]`)
        }
        const added = inserted.split('\n')
        const edited = [...lines.slice(0, line), ...added, ...lines.slice(line)]
        await this.#write(parts, shown, edited.join('\n'))
        this.#remember(key, text)
        const start = Math.max(0, line - SNIPPET_LINES)
        const snippet = edited.slice(start, line + added.length + SNIPPET_LINES).join('\n')
        return `The file ${shown} has been edited. ${catN(snippet, 'a snippet of the edited file', start + 1)}Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.`
      }
      case 'undo_edit': {
        const previous = this.#history.get(key)?.pop()
        if (previous === undefined) throw new InvalidAction(`No edit history found for ${shown}.`)
        await this.#write(parts, shown, previous)
        return `Last edit to ${shown} undone successfully. ${catN(previous, shown, 1)}`
      }
    }
  }

  #remember (key: string, text: string): void {
    const list = this.#history.get(key) ?? []
    list.push(text)
    if (list.length > HISTORY) list.shift()
    this.#history.set(key, list)
  }

  async #view (parts: string[], shown: string, range: number[] | undefined): Promise<string> {
    const listing = await this.#walking(shown, async (walk) => {
      const leaf = await walk.leaf(parts, { follow: true })
      if (!leaf?.stats) throw nothingAt(shown)
      if (!leaf.stats.isDirectory()) return undefined
      if (range) throw new InvalidAction('The `view_range` parameter is not allowed when `path` points to a directory.')
      if (leaf.name !== undefined) await walk.enter([leaf.name])
      const entries: string[] = []
      for (const name of (await walk.names()).sort()) {
        if (name.startsWith('.')) continue
        entries.push(name)
        const inner = await walk.leaf([name], { follow: false })
        if (!inner?.stats?.isDirectory()) continue
        await walk.enter([name])
        for (const sub of (await walk.names()).sort()) if (!sub.startsWith('.')) entries.push(`${name}/${sub}`)
        await walk.enter(['..'])
      }
      return entries
    })
    if (listing) {
      const base = shown.replace(/\/+$/, '') || '.'
      return `Here's the files and directories up to 2 levels deep in ${shown}, excluding hidden items:\n${[base, ...listing.map((entry) => `${base}/${entry}`)].join('\n')}\n`
    }
    const text = await this.#read(parts, shown)
    if (!range) return catN(text, shown, 1)
    const lines = text.split('\n')
    const [first, last] = range
    if (range.length !== 2 || !Number.isInteger(first) || !Number.isInteger(last)) throw new InvalidAction('Invalid `view_range`. It should be a list of two integers.')
    if (first! < 1 || first! > lines.length) throw new InvalidAction(`Invalid \`view_range\`: ${JSON.stringify(range)}. Its first element \`${first}\` should be within the range of lines of the file: [1, ${lines.length}]`)
    if (last! !== -1 && (last! < first! || last! > lines.length)) {
      throw new InvalidAction(`Invalid \`view_range\`: ${JSON.stringify(range)}. Its second element \`${last}\` should be -1 or within [${first}, ${lines.length}]`)
    }
    return catN(lines.slice(first! - 1, last === -1 ? undefined : last).join('\n'), shown, first!)
  }

  /** A regular file's text, opened without following a last link out and never blocking on a FIFO. */
  async #read (parts: string[], shown: string): Promise<string> {
    if (!parts.length) throw new PathConflict(`'${shown}' is the home directory itself, not a file`)
    return this.#walking(shown, async (walk) => {
      const leaf = await walk.leaf(parts, { follow: true })
      if (!leaf?.stats) throw nothingAt(shown)
      if (leaf.stats.isDirectory()) throw new PathConflict(`'${shown}' is a directory, not a file: view lists it`)
      const handle = await open(leaf.dir.at(leaf.name!), READ_FILE)
      try {
        const info = await handle.stat()
        if (!info.isFile()) throw new PathConflict(`'${shown}' is not a regular file (a FIFO, socket or device): it is not opened`)
        if (info.size > this.#maxBytes) throw new TooLarge(`'${shown}' is ${info.size} bytes, over the editor's limit of ${this.#maxBytes}`)
        return (await handle.readFile()).toString('utf8')
      } finally {
        await handle.close()
      }
    })
  }

  /** Writes `text` to a new file beside the target, gives it to the home's owner, and renames it onto the target. */
  async #write (parts: string[], shown: string, text: string): Promise<void> {
    if (!parts.length) throw new PathConflict(`'${shown}' is the home directory itself, not a file`)
    const bytes = Buffer.from(text)
    if (bytes.length > this.#maxBytes) throw new TooLarge(`the text is ${bytes.length} bytes, over the editor's limit of ${this.#maxBytes}`)
    const owner = await this.#owner()
    await this.#walking(shown, async (walk) => {
      const leaf: Leaf | undefined = await walk.leaf(parts, { follow: true, create: { ...(owner && { owner }) } })
      if (!leaf || leaf.name === undefined) throw new PathConflict(`'${shown}' is a directory, not a file`)
      if (leaf.stats && !leaf.stats.isFile()) throw new PathConflict(`'${shown}' is ${leaf.stats.isDirectory() ? 'a directory' : 'not a regular file'}: the editor writes files only`)
      const temporary = `.${leaf.name.slice(0, 200)}.edit-${randomBytes(6).toString('hex')}`
      const handle = await open(leaf.dir.at(temporary), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, leaf.stats ? leaf.stats.mode & 0o777 : 0o644)
      try {
        await handle.writeFile(bytes)
        if (owner) await handle.chown(leaf.stats?.uid ?? owner.uid, leaf.stats?.gid ?? owner.gid)
        await handle.close()
        await rename(leaf.dir.at(temporary), leaf.dir.at(leaf.name))
      } catch (error) {
        await handle.close().catch(() => {})
        await unlink(leaf.dir.at(temporary)).catch(() => {})
        throw error
      }
    })
  }

  /** The home's owner, when the server runs as root and the home is another user's. */
  async #owner (): Promise<Owner | undefined> {
    if (process.getuid?.() !== 0) return undefined
    const info = await stat(await this.#home())
    return info.uid === 0 ? undefined : { uid: info.uid, gid: info.gid }
  }
}

function need<T> (value: T | undefined, field: string, command: string): T {
  if (value === undefined) throw new InvalidAction(`Parameter \`${field}\` is required for command: ${command}`)
  return value
}

/** `cat -n` of `text`, numbered from `first`, with the reference tool's header. */
function catN (text: string, what: string, first: number): string {
  const numbered = text.split('\n').map((line, index) => `${String(index + first).padStart(6)}\t${line}`).join('\n')
  return `Here's the result of running \`cat -n\` on ${what}:\n${numbered}\n`
}
